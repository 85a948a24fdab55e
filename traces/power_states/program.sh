# The PCU of socket 0 (ivb-ep MSRs 0xC24-0xC39): frozen and reset, the band
# filter at 0 / 1.0 / 2.0 / 3.0 GHz (PCM's bands), then the cores in C0
# summed, the cycles with at least 4 cores in C6, the cycles at or above
# 2.0 GHz, and the entries into C3 (occ_edge_det with thresh 1).
wrmsr 0xc00 0x80000000
wrmsr 0xc24 0x00030003
wrmsr 0xc34 0x1e140a00                    # bands 0-3: 0x00, 0x0a, 0x14, 0x1e (100 MHz steps)
wrmsr 0xc30 0x00404080                    # ctr0: POWER_STATE_OCCUPANCY, occ_sel 1 (C0)
wrmsr 0xc31 0x0440c080                    # ctr1: occ_sel 3 (C6), thresh 4
wrmsr 0xc32 0x0040000d                    # ctr2: FREQ_BAND2_CYCLES
wrmsr 0xc33 0x81408080                    # ctr3: occ_sel 2 (C3), thresh 1, occ_edge_det
wrmsr 0xc24 0x00030000
wrmsr 0xc00 0x20000000
