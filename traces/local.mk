# traces: see Makefile.am for the shared variables.
