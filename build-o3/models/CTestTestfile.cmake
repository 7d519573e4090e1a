# CMake generated Testfile for 
# Source directory: /work/main/models
# Build directory: /work/main/build-o3/models
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
