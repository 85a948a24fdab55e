setpci -s ff:13.1 d8.L=00c00001
sleep 0.000001
