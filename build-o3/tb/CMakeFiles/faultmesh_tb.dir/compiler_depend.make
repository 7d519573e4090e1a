# Empty compiler generated dependencies file for faultmesh_tb.
# This may be replaced when dependencies are built.
