# Linking the static archives Debian ships beside the shared libraries, so
# that perftk starts without loading and relocating a dozen shared objects:
# `perftk --version` takes 1.6 ms instead of 2.7 (perf stat -r 40), which
# every command pays and which is 2-3% of decoding a short trace. A library
# without its archive keeps its shared object. The tests link the same
# archives, so they run the code the binary runs; the sanitizer builds link
# only Abseil's (CMakeLists.txt says why).

# perftk_link_abseil_statically(): points every imported absl:: shared
# library target at its archive (libabsl_X.so.* -> libabsl_X.a). Call it in
# the directory that ran find_package(absl), before any target links Abseil.
function(perftk_link_abseil_statically)
  get_directory_property(imported IMPORTED_TARGETS)
  set(switched 0)
  foreach(target IN LISTS imported)
    if(NOT target MATCHES "^absl::")
      continue()
    endif()
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "SHARED_LIBRARY")
      continue()
    endif()
    get_target_property(configs ${target} IMPORTED_CONFIGURATIONS)
    foreach(config IN LISTS configs)
      get_target_property(location ${target} IMPORTED_LOCATION_${config})
      string(REGEX REPLACE "\\.so(\\.[0-9.]*)?$" ".a" archive "${location}")
      if(archive STREQUAL location OR NOT EXISTS "${archive}")
        continue()
      endif()
      # An archive has no soname: CMake then links it by its full path.
      set_target_properties(${target} PROPERTIES IMPORTED_LOCATION_${config} "${archive}")
      set_property(TARGET ${target} PROPERTY IMPORTED_SONAME_${config})
      math(EXPR switched "${switched} + 1")
    endforeach()
  endforeach()
  message(STATUS "Abseil: ${switched} libraries linked statically")
endfunction()

# perftk_link_pkg_config_statically(PREFIX...): for each prefix of a
# pkg_check_modules(PREFIX ... IMPORTED_TARGET ...), links PkgConfig::PREFIX
# with the archives of what `pkg-config --static --libs` names (libdw: libdw,
# libbz2, libelf, libz, liblzma), in that order, when every one of them is
# installed; else it leaves the target as it is.
function(perftk_link_pkg_config_statically)
  foreach(prefix IN LISTS ARGN)
    set(archives)
    set(complete TRUE)
    foreach(name IN LISTS ${prefix}_STATIC_LIBRARIES)
      if(name STREQUAL "pthread")  # Threads::Threads says how
        continue()
      endif()
      unset(archive)  # else find_library keeps the one found before
      find_library(archive NAMES lib${name}.a HINTS ${${prefix}_STATIC_LIBRARY_DIRS} NO_CACHE)
      if(NOT archive)
        set(complete FALSE)
        break()
      endif()
      list(APPEND archives ${archive})
    endforeach()
    if(complete)
      list(REMOVE_DUPLICATES archives)
      set_property(TARGET PkgConfig::${prefix} PROPERTY INTERFACE_LINK_LIBRARIES
                   ${archives} Threads::Threads)
      message(STATUS "${prefix}: linked statically (${archives})")
    else()
      message(STATUS "${prefix}: no archive of lib${name}, linked as a shared library")
    endif()
  endforeach()
endfunction()
