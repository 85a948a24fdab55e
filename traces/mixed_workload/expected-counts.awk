# Computes expected-counts.csv from packets.csv without the model:
#   awk -F, -f expected-counts.awk packets.csv
/^#/ || $1 == "cycle" { next }
{
    port = $3; dir = $4; mc = $5; opc = $6 + 0
    if (mc == "DRS" || mc == "NCB") flits = opc >= 8 ? 11 : 9
    else if (mc == "NCS") flits = opc >= 8 ? 3 : 1
    else flits = 1
    if (dir == "rx" && mc == "DRS") drs[port] += 8
    if (dir == "rx" && mc == "NCB") ncb[port] += 8
    if (dir == "tx") tx[port] += flits
    if (dir == "rx" && mc == "DRS" && opc < 4) anydatac[port]++
}
END {
    print "socket,box,counter,value"
    for (p = 0; p < 2; p++)
        printf "0,qpi%d,0,%d\n0,qpi%d,1,%d\n0,qpi%d,2,%d\n", p, drs[p], p, ncb[p], p, tx[p]
    printf "0,qpi1,3,%d\n", anydatac[1]
}
