# Memory-controller channels 0-3 of socket 0 (ivb-ep: D16:F4, F5, F0, F1):
# CAS_COUNT.RD and .WR on counters 0 and 1 of each, as pcm programs them; the
# DCLK counter of channel 0; on channel 1 the read bursts by edge; on channel 3
# the read queue's inserts and busy cycles. Caching agents 0, 2 and 3 (MSRs
# from 0xD04 + 0x20n) count their lookups, victims and UCLK cycles, with the
# state filter open to every LLC state, as likwid's CBOX group sets it.
wrmsr 0xc00 0x80000000
setpci -s ff:10.4 f4.L=00030103
setpci -s ff:10.5 f4.L=00030103
setpci -s ff:10.0 f4.L=00030103
setpci -s ff:10.1 f4.L=00030103
setpci -s ff:10.4 d8.L=00400304           # imc0 ctr0: CAS_COUNT.RD
setpci -s ff:10.4 dc.L=00400c04           # imc0 ctr1: CAS_COUNT.WR
setpci -s ff:10.4 f0.L=00400000           # imc0 DCLK counter
setpci -s ff:10.5 d8.L=00400304           # imc1 ctr0: CAS_COUNT.RD
setpci -s ff:10.5 dc.L=01440304           # imc1 ctr1: CAS_COUNT.RD, edge, thresh 1: bursts
setpci -s ff:10.0 d8.L=00400304           # imc2 ctr0: CAS_COUNT.RD
setpci -s ff:10.0 dc.L=00400c04           # imc2 ctr1: CAS_COUNT.WR
setpci -s ff:10.0 e0.L=00400804           # imc2 ctr2: CAS_COUNT.WR_RMM
setpci -s ff:10.1 d8.L=00400010           # imc3 ctr0: RPQ_INSERTS
setpci -s ff:10.1 dc.L=00400011           # imc3 ctr1: RPQ_CYCLES_NE
wrmsr 0xd04 0x30003
wrmsr 0xd44 0x30003
wrmsr 0xd64 0x30003
wrmsr 0xd14 0x7e0000                      # cbo0 FILTER0: every LLC state
wrmsr 0xd74 0x7e0000                      # cbo3 FILTER0
wrmsr 0xd10 0x400334                      # cbo0 ctr0: LLC_LOOKUP.DATA_READ
wrmsr 0xd11 0x400000                      # cbo0 ctr1: CLOCKTICKS
wrmsr 0xd50 0x400137                      # cbo2 ctr0: LLC_VICTIMS.M_STATE
wrmsr 0xd70 0x400534                      # cbo3 ctr0: LLC_LOOKUP.WRITE
wrmsr 0xd04 0x30000
wrmsr 0xd44 0x30000
wrmsr 0xd64 0x30000
setpci -s ff:10.4 f4.L=00030000
setpci -s ff:10.5 f4.L=00030000
setpci -s ff:10.0 f4.L=00030000
setpci -s ff:10.1 f4.L=00030000
wrmsr 0xc00 0x20000000
