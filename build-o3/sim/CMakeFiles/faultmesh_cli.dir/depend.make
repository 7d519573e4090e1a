# Empty dependencies file for faultmesh_cli.
# This may be replaced when dependencies are built.
