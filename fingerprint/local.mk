# fingerprint: see Makefile.am for the shared variables.
