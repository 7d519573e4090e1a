# Empty dependencies file for faultmesh_tests.
# This may be replaced when dependencies are built.
