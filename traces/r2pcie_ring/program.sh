# R2PCIe ring and ingress events (occupancy only on counter 0).
wrmsr 0xc00 0x80000000
setpci -s ff:13.1 f4.L=00030103
setpci -s ff:13.1 d8.L=00400813           # ctr0: RxR_OCCUPANCY.DRS
setpci -s ff:13.1 dc.L=00403307           # ctr1: RING_AD_USED.CW
setpci -s ff:13.1 e0.L=01440109           # ctr2: RING_BL_USED.CW_VR0_EVEN, edge, thresh 1: bursts
setpci -s ff:13.1 e4.L=0040cc07           # ctr3: RING_AD_USED.CCW
setpci -s ff:13.1 f4.L=00030000
wrmsr 0xc00 0x20000000
