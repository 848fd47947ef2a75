# `cmake --install BUILD [--prefix P]` (docs/install.md):
#   lib/librocpd_ext.so                       the extension, stripped
#   lib/.debug/librocpd_ext.so.debug          its debug symbols (found by gdb through .gnu_debuglink)
#   lib/pkgconfig/rocpd_ext.pc                pkg-config: --libs, --variable=extension
#   lib/cmake/rocpd_ext/                      find_package(rocpd_ext): rocpd_ext::rocpd_ext, rocpd_ext_EXTENSION
#   share/rocpd_ext/sql/                      the analysis views (sql/views) and the demo script
#   share/doc/rocpd_ext/                      README.md and docs/
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS rocpd_ext LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# Strip the installed copy, keeping its debug symbols beside it (the build tree keeps them in the
# library). Paths are resolved at install time, so --prefix and DESTDIR apply.
if(CMAKE_OBJCOPY AND CMAKE_STRIP)
  install(CODE "
    set(_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
    if(IS_ABSOLUTE \"${CMAKE_INSTALL_LIBDIR}\")
      set(_dir \"\$ENV{DESTDIR}${CMAKE_INSTALL_LIBDIR}\")
    endif()
    set(_lib \"\${_dir}/librocpd_ext.so\")
    file(MAKE_DIRECTORY \"\${_dir}/.debug\")
    execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --only-keep-debug \"\${_lib}\" \"\${_dir}/.debug/librocpd_ext.so.debug\"
                    COMMAND_ERROR_IS_FATAL ANY)
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded \"\${_lib}\" COMMAND_ERROR_IS_FATAL ANY)
    execute_process(COMMAND \"${CMAKE_OBJCOPY}\" \"--add-gnu-debuglink=\${_dir}/.debug/librocpd_ext.so.debug\" \"\${_lib}\"
                    COMMAND_ERROR_IS_FATAL ANY)
    message(STATUS \"Stripped: \${_lib} (debug symbols in \${_dir}/.debug/librocpd_ext.so.debug)\")
  ")
else()
  message(WARNING "objcopy/strip not found: the installed library keeps its debug symbols")
endif()

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
