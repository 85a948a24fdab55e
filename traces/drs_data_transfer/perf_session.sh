# The register writes Linux perf makes on IVB-EP for
#   perf stat -e 'uncore_qpi_0/event=0x138,match_mc=0xe,mask_mc=0xf,mask_opc=0xc/' \
#             -e 'uncore_qpi_0/event=0x102,umask=0x08/'
# (DRS.AnyDataC through CTO_COUNT, and RxL_FLITS_G1.DRS_DATA), then its reads.
setpci -s ff:08.2 f4.L=00000003                   # init_box: reset controls and counters
setpci -s ff:08.2 f4.L=00000100                   # disable_box: set frz
setpci -s ff:08.6 228.L=00001c00 22c.L=00000000   # MATCH0/MATCH1 = config1
setpci -s ff:08.6 238.L=00001f80 23c.L=00000000   # MASK0/MASK1 = config2
setpci -s ff:08.2 d8.L=00600038                   # enable_event: CTO_COUNT | EN
setpci -s ff:08.2 dc.L=00600802                   # enable_event: DRS_DATA | EN
setpci -s ff:08.2 f4.L=00000000                   # enable_box: clear frz
sleep 0.000002
setpci -s ff:08.2 f4.L=00000100                   # disable_box before reading
echo CTO_COUNT low/high, DRS_DATA low/high:
setpci -s ff:08.2 a0.L a4.L a8.L ac.L
