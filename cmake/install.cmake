# `cmake --install BUILD [--prefix P]` (docs/install.md):
#   bin/rocpd-ext                             the command-line tool (docs/cli.md), stripped
#   bin/.debug/rocpd-ext.debug                its debug symbols
#   lib/librocpd_ext.so                       the extension, stripped
#   lib/.debug/librocpd_ext.so.debug          its debug symbols (found by gdb through .gnu_debuglink)
#   lib/python3.11/dist-packages/rocpd_ext/   the Python package (ROCPD_PYTHON_SITEDIR; docs/python.md)
#   lib/pkgconfig/rocpd_ext.pc                pkg-config: --libs, --variable=extension
#   lib/cmake/rocpd_ext/                      find_package(rocpd_ext): rocpd_ext::rocpd_ext, rocpd_ext_EXTENSION
#   share/rocpd_ext/sql/                      the analysis views (sql/views) and the demo script
#   share/doc/rocpd_ext/                      README.md and docs/
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS rocpd_ext LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS rocpd-ext RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Strip the installed copies, keeping their debug symbols beside them in .debug/ (the build tree
# keeps them in the files). Paths are resolved at install time, so --prefix and DESTDIR apply.
if(CMAKE_OBJCOPY AND CMAKE_STRIP)
  foreach(_pair "${CMAKE_INSTALL_LIBDIR}|librocpd_ext.so|librocpd_ext.so.debug"
                "${CMAKE_INSTALL_BINDIR}|rocpd-ext|rocpd-ext.debug")
    string(REPLACE "|" ";" _pair "${_pair}")
    list(GET _pair 0 _reldir)
    list(GET _pair 1 _file)
    list(GET _pair 2 _debug)
    install(CODE "
      set(_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${_reldir}\")
      if(IS_ABSOLUTE \"${_reldir}\")
        set(_dir \"\$ENV{DESTDIR}${_reldir}\")
      endif()
      set(_target \"\${_dir}/${_file}\")
      file(MAKE_DIRECTORY \"\${_dir}/.debug\")
      execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --only-keep-debug \"\${_target}\" \"\${_dir}/.debug/${_debug}\"
                      COMMAND_ERROR_IS_FATAL ANY)
      execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded \"\${_target}\" COMMAND_ERROR_IS_FATAL ANY)
      execute_process(COMMAND \"${CMAKE_OBJCOPY}\" \"--add-gnu-debuglink=\${_dir}/.debug/${_debug}\" \"\${_target}\"
                      COMMAND_ERROR_IS_FATAL ANY)
      message(STATUS \"Stripped: \${_target} (debug symbols in \${_dir}/.debug/${_debug})\")
    ")
  endforeach()
else()
  message(WARNING "objcopy/strip not found: the installed library and tool keep their debug symbols")
endif()

# The Python package (python/rocpd_ext) under lib/pythonX.Y/dist-packages, the directory Debian's
# python3 reads for the prefix /usr/local (site-packages for a Python whose own packages live
# there); any other prefix: PYTHONPATH=<prefix>/<that directory>. Set ROCPD_PYTHON_SITEDIR to
# choose another. Its _location.py gives the library's path relative to the package, so the
# installed tree can be moved.
set(ROCPD_PYTHON /usr/bin/python3 CACHE FILEPATH "Python that can load SQLite extensions")
if(NOT ROCPD_PYTHON_SITEDIR)
  set(_site lib/python3/dist-packages)
  if(EXISTS ${ROCPD_PYTHON})
    execute_process(COMMAND ${ROCPD_PYTHON} -c
      "import sys, sysconfig; v = sys.version_info; k = 'dist' if sysconfig.get_path('purelib').endswith('dist-packages') else 'site'; print(f'lib/python{v[0]}.{v[1]}/{k}-packages')"
      OUTPUT_VARIABLE _site_out RESULT_VARIABLE _site_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_site_rc EQUAL 0 AND _site_out)
      set(_site ${_site_out})
    endif()
  endif()
  set(ROCPD_PYTHON_SITEDIR ${_site} CACHE STRING "Where (relative to the prefix) the Python package is installed")
endif()
file(RELATIVE_PATH _pkg_to_lib /prefix/${ROCPD_PYTHON_SITEDIR}/rocpd_ext /prefix/${CMAKE_INSTALL_LIBDIR})
string(REGEX REPLACE "/$" "" _pkg_to_lib "${_pkg_to_lib}")
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/install/_location.py CONTENT
  "# Written by `cmake --install` (cmake/install.cmake): the library, relative to this package.\nLIBRARY_RELATIVE = '${_pkg_to_lib}/librocpd_ext.so'\n")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/rocpd_ext DESTINATION ${ROCPD_PYTHON_SITEDIR}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(FILES ${CMAKE_BINARY_DIR}/install/_location.py DESTINATION ${ROCPD_PYTHON_SITEDIR}/rocpd_ext)

# Both package files find the prefix relative to themselves: the installed tree can be moved.
set(_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/rocpd_ext)
file(RELATIVE_PATH ROCPD_PC_TO_PREFIX /prefix/${_pc_dir} /prefix)
file(RELATIVE_PATH ROCPD_CMAKE_TO_PREFIX /prefix/${_cmake_dir} /prefix)
string(REGEX REPLACE "/$" "" ROCPD_PC_TO_PREFIX "${ROCPD_PC_TO_PREFIX}")
string(REGEX REPLACE "/$" "" ROCPD_CMAKE_TO_PREFIX "${ROCPD_CMAKE_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/rocpd_ext.pc.in ${CMAKE_BINARY_DIR}/install/rocpd_ext.pc @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/rocpd_extConfig.cmake.in ${CMAKE_BINARY_DIR}/install/rocpd_extConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/rocpd_extConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/rocpd_ext.pc DESTINATION ${_pc_dir})
install(FILES ${CMAKE_BINARY_DIR}/install/rocpd_extConfig.cmake ${CMAKE_BINARY_DIR}/install/rocpd_extConfigVersion.cmake
        DESTINATION ${_cmake_dir})

install(DIRECTORY ${CMAKE_SOURCE_DIR}/sql/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rocpd_ext/sql
        FILES_MATCHING PATTERN "*.sql")
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
