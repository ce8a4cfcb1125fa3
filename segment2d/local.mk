# segment2d: see Makefile.am for the shared variables.
