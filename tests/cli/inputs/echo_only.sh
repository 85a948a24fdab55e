echo before
