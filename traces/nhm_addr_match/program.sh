# ADDR_OPCODE_MATCH on a Xeon 5500 (SDM Vol. 3B 18.8.2.3): MSR 0x396 selects
# the cache line at 0x7f001040 (MatchSel 100: address only). Counters 0-3
# count the matching requests per source, counter 4 (cmask 1 and edge) the
# bursts of them. The one register serves every counter that selects 0x35.
wrmsr 0x391 0                       # GLOBAL_CTRL: everything off while programming
wrmsr 0x396 0x800000007f001040      # MatchSel 100, ADDR 0x7f001040
wrmsr 0x3c0 0x00400435              # PERFEVTSEL0: ADDR_OPCODE_MATCH.LOCAL
wrmsr 0x3c1 0x00400235              # PERFEVTSEL1: ADDR_OPCODE_MATCH.REMOTE
wrmsr 0x3c2 0x00400135              # PERFEVTSEL2: ADDR_OPCODE_MATCH.IOH
wrmsr 0x3c3 0x00400735              # PERFEVTSEL3: all three sources
wrmsr 0x3c4 0x01440735              # PERFEVTSEL4: the same, cmask 1 and edge: bursts
wrmsr 0x395 1                       # FIXED_CTR_CTRL: the uncore clock
wrmsr 0x391 0x10000001f             # GLOBAL_CTRL: EN_PC0-4 and EN_FC0
