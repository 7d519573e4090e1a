# Empty compiler generated dependencies file for faultmesh.
# This may be replaced when dependencies are built.
