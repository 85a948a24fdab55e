echo before
wrmsr 0xc12 1
echo after
