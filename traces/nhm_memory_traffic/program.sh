# The Nehalem-EP uncore as Linux's perf programs it (its "uncore" PMU): the
# box disabled, each event written with en (bit 22), the fixed counter
# enabled, then every global enable at once.
wrmsr 0x391 0                       # GLOBAL_CTRL: disable_box
wrmsr 0x3c0 0x0040072c              # PERFEVTSEL0: QMC_NORMAL_READS.ANY
wrmsr 0x3c1 0x0040012c              # PERFEVTSEL1: QMC_NORMAL_READS.CH0
wrmsr 0x3c2 0x0040072f              # PERFEVTSEL2: QMC_WRITES.FULL_ANY
wrmsr 0x3c3 0x0040382f              # PERFEVTSEL3: QMC_WRITES.PARTIAL_ANY
wrmsr 0x3c4 0x00401020              # PERFEVTSEL4: QHL_REQUESTS.LOCAL_READS
wrmsr 0x3c5 0x00400423              # PERFEVTSEL5: QHL_OCCUPANCY.LOCAL (sum of occupancy)
wrmsr 0x3c6 0x04400423              # PERFEVTSEL6: the same, cmask 4: cycles with >= 4 entries
wrmsr 0x3c7 0x04440423              # PERFEVTSEL7: the same with edge: times it reached 4
wrmsr 0x395 0x1                     # FIXED_CTR_CTRL: en
wrmsr 0x391 0x1000000ff             # GLOBAL_CTRL: EN_PC0-7, EN_FC0 (enable_box)
