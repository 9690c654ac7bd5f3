// The object that builds the unit tests' precompiled header
// (tests/CMakeLists.txt, perftk_test_pch); it holds no code.
