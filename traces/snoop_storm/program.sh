# Snoop counting on both QPI ports; CTO_COUNT with the SNP.AnySnp filter.
wrmsr 0xc00 0x80000000
setpci -s ff:08.2 f4.L=00030103
setpci -s ff:09.2 f4.L=00030103
setpci -s ff:08.6 228.L=00000600 238.L=00001e00   # MC = SNP, any opcode
setpci -s ff:08.2 d8.L=00600102           # ctr0: RxL_FLITS_G1.SNP
setpci -s ff:08.2 dc.L=00600038           # ctr1: CTO_COUNT (SNP.AnySnp)
setpci -s ff:08.2 e0.L=00600400           # ctr2: TxL_FLITS_G1.HOM_NONREQ (the responses)
setpci -s ff:08.2 e4.L=02600102           # ctr3: RxL_FLITS_G1.SNP, thresh 2: cycles with 2 snoop flits
setpci -s ff:09.2 d8.L=00600102           # port 1 ctr0: RxL_FLITS_G1.SNP
setpci -s ff:09.2 dc.L=01640102           # port 1 ctr1: same, edge detect, thresh 1: bursts
setpci -s ff:08.2 f4.L=00030000
setpci -s ff:09.2 f4.L=00030000
wrmsr 0xc00 0x20000000
