# cpack -G DEB (in the build folder): a Debian package of what
# `cmake --install` installs. Its Depends come from dpkg-shlibdeps on the
# binary, so they name exactly the shared libraries it loads (a release
# build links the others' archives, see StaticLibraries.cmake).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME perftk)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "rewrite, fix up and decode Linux perf.data recordings")
set(CPACK_PACKAGE_DESCRIPTION
    "perftk works on what `perf record` writes: it hides the address-space layout
of a recording (aslr), turns jitdumps into ELF files (jit), decodes CoreSight
ETM trace for AutoFDO and BOLT (cs-etm-decode), places uprobes by name
(uprobe-offset), and copies and dumps recordings.")
set(CPACK_PACKAGE_CONTACT "perftk developers")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "linux-perf")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
# The package holds the binary without its debug information (~10x smaller).
set(CPACK_STRIP_FILES ON)
include(CPack)
