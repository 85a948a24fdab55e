// "Did you mean ...": the valid names nearest to a misspelt one, for the
// errors of every tool (options, CPUs, boxes, events, sub-events, metrics).
// Distance is Damerau-Levenshtein (optimal string alignment), ignoring case,
// so a swapped pair of letters costs one edit.
#pragma once
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace pmonsim {

inline std::size_t edit_distance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size(), m = b.size();
    auto lc = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = lc(a[i - 1]) == lc(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && lc(a[i - 1]) == lc(b[j - 2]) && lc(a[i - 2]) == lc(b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

// The candidates within 1 edit of a word of up to 4 letters, 2 of one up to
// 8, a quarter of the length beyond; nearest first, at most `max`. A
// candidate that starts with the word (an abbreviation) counts as near too.
inline std::vector<std::string> nearest_names(const std::string& word, const std::vector<std::string>& candidates,
                                              std::size_t max = 3) {
    if (word.empty() || word.size() > 256) return {};  // (bounded: O(n m) per candidate)
    const std::size_t limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : word.size() / 4;
    std::vector<std::pair<std::size_t, std::string>> hits;
    for (const std::string& c : candidates) {
        if (c.size() > 256) continue;
        std::size_t dist = edit_distance(word, c);
        if (dist > limit && c.size() > word.size() && word.size() >= 3 &&
            edit_distance(word, c.substr(0, word.size())) == 0)
            dist = limit;  // an abbreviation
        if (dist <= limit && dist > 0) hits.emplace_back(dist, c);
    }
    std::stable_sort(hits.begin(), hits.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (const auto& h : hits) {
        if (out.size() == max) break;
        if (std::find(out.begin(), out.end(), h.second) == out.end()) out.push_back(h.second);
    }
    return out;
}

// " (did you mean X, Y or Z?)", or "" when nothing is near.
inline std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
    const std::vector<std::string> near = nearest_names(word, candidates);
    if (near.empty()) return "";
    std::string s = " (did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i)
        s += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i];
    return s + "?)";
}

}  // namespace pmonsim
