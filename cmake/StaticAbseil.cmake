# perftk_link_abseil_statically(): points every imported absl:: shared
# library target at the static archive Debian ships beside it
# (libabsl_X.so.* -> libabsl_X.a), so that binaries do not load some thirty
# small shared objects at startup. A target without an archive keeps its
# shared library. Call it in the directory that ran find_package(absl),
# before any target links Abseil.
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
