# QPI port 0 programmed like Intel PCM's traffic events, plus CTO_COUNT with the
# DRS.DataC_M filter (329468-002 Table 2-137). Bus 0xff is socket 0's uncore bus.
wrmsr 0xc00 0x80000000                    # freeze every box while programming
setpci -s ff:08.2 f4.L=00030103           # box: frz (17:16 written 1), reset controls and counters
setpci -s ff:08.6 228.L=00001c00 22c.L=00080000 238.L=00001fe0 23c.L=000f0000
setpci -s ff:08.2 d8.L=00600802           # ctr0: RxL_FLITS_G1.DRS_DATA
setpci -s ff:08.2 dc.L=00600403           # ctr1: RxL_FLITS_G2.NCB_DATA
setpci -s ff:08.2 e0.L=00400600           # ctr2: TxL_FLITS_G0.DATA|NON_DATA
setpci -s ff:08.2 e4.L=00600038           # ctr3: CTO_COUNT (DRS.DataC_M)
setpci -s ff:08.2 f4.L=00030000           # box unfrozen
wrmsr 0xc00 0x20000000                    # unfreeze all
