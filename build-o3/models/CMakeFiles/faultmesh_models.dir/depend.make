# Empty dependencies file for faultmesh_models.
# This may be replaced when dependencies are built.
