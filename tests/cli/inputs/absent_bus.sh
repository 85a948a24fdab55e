# Programs QPI port 0's counter 0 on bus 7f: socket 0's uncore bus on a
# two-socket model, a bus a one-socket model does not have.
setpci -s 7f:08.2 d8.L=00600802
