# Intel PCM's four traffic events on both QPI ports, with CTO_COUNT on port 1
# counting DRS.AnyDataC instead of CLOCKTICKS.
wrmsr 0xc00 0x80000000
setpci -s ff:08.2 f4.L=00030103
setpci -s ff:09.2 f4.L=00030103
setpci -s ff:09.6 228.L=00001c00 238.L=00001f80   # DRS.AnyDataC
setpci -s ff:08.2 d8.L=00600802 dc.L=00600403 e0.L=00400600 e4.L=00400014
setpci -s ff:09.2 d8.L=00600802 dc.L=00600403 e0.L=00400600 e4.L=00600038
setpci -s ff:08.2 f4.L=00030000
setpci -s ff:09.2 f4.L=00030000
wrmsr 0xc00 0x20000000
