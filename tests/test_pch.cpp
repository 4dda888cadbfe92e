// The target that compiles the test programs' precompiled headers (tests/CMakeLists.txt):
// ember.h and GoogleTest, which every test file includes. Nothing else lives here.
