# Helpers that keep every folder's CMakeLists.txt to a few lines.

# -Wshadow=local (GCC): a local declared over another local of the same
# name, as the std::string that once hid the segmenter's final-merge flag.
set(FUSERLAB_WARNINGS -Wall -Wextra -Wno-unused-parameter
    $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>)

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# `cmake --install build --prefix P` (issue 47): the programs, the core's
# headers (include/core/..., the same paths as in the tree) and static
# libraries, and the CMake package FuserLab (find_package(FuserLab) gives
# FuserLab::core and one target per core library, FuserLab::ir, ...).
# Off under scikit-build (`pip install .`), which builds only the Python
# module and installs it itself.
if(SKBUILD)
  set(_fuserlab_install_default OFF)
else()
  set(_fuserlab_install_default ON)
endif()
option(FUSERLAB_INSTALL "Install rules for the programs, the core's headers and libraries and the CMake package"
  ${_fuserlab_install_default})

# fuserlab_add_library(<name> SOURCES <files...> DEPS <targets...>)
# One static library per folder; include paths are rooted at the repository,
# so code includes "core/ir/fusion.h" (in an install tree: rooted at include/).
# A library under core/ is installed and exported as FuserLab::<name without
# fuserlab_>.
function(fuserlab_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  if(FUSERLAB_PYTHON)
    # Linked into the Python extension, a shared object.
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_options(${name} PRIVATE ${FUSERLAB_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  set(core_dir "${PROJECT_SOURCE_DIR}/core")
  cmake_path(IS_PREFIX core_dir "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE in_core)
  if(in_core)
    fuserlab_export_library(${name})
  endif()
endfunction()

# fuserlab_export_library(<target>): part of the installed package, as
# FuserLab::<target without fuserlab_>.
function(fuserlab_export_library name)
  string(REGEX REPLACE "^fuserlab_" "" export_name ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${export_name})
  set_property(GLOBAL APPEND PROPERTY FUSERLAB_EXPORTED_LIBRARIES ${name})
  if(FUSERLAB_INSTALL)
    install(TARGETS ${name} EXPORT FuserLabTargets
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development)
  endif()
endfunction()

# fuserlab_install_program(<executable>): into bin/. Its run path keeps the
# directories of the libraries it links outside the system's (the CUDA
# toolkit's lib64 for NVRTC and cuBLASLt), as the build tree's does.
function(fuserlab_install_program target)
  if(FUSERLAB_INSTALL)
    set_target_properties(${target} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
      COMPONENT Runtime)
  endif()
endfunction()

# fuserlab_install_package(): called once every library is defined. The
# core's headers, FuserLab::core (every core library and measure),
# FuserLab::db (SQLite), FuserLab::tuner and FuserLab::viz (Graphviz) with
# their headers, and the package files
# FuserLabConfig.cmake, FuserLabConfigVersion.cmake, FuserLabTargets.cmake.
function(fuserlab_install_package)
  get_property(libraries GLOBAL PROPERTY FUSERLAB_EXPORTED_LIBRARIES)
  list(FILTER libraries EXCLUDE REGEX "^fuserlab_(nvrtc|cublaslt|db|tuner|viz)$")
  add_library(fuserlab_core INTERFACE)
  target_link_libraries(fuserlab_core INTERFACE ${libraries})
  fuserlab_export_library(fuserlab_core)
  add_library(FuserLab::core ALIAS fuserlab_core)
  if(NOT FUSERLAB_INSTALL)
    return()
  endif()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/core COMPONENT Development
    FILES_MATCHING PATTERN "*.h" PATTERN "*.inc")
  # measure/ (timing on a GPU: the benchmark, statistics, CUPTI records) is
  # outside core/ but part of the package (FuserLab::measure).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/measure/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/measure COMPONENT Development
    FILES_MATCHING PATTERN "*.h")
  # db/ (the heuristics database in SQLite), tuner/ and viz/ (the graphs and
  # their Graphviz layouts) likewise, as FuserLab::db, ::tuner and ::viz.
  foreach(folder db tuner viz)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${folder} COMPONENT Development
      FILES_MATCHING PATTERN "*.h")
  endforeach()
  set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/FuserLab)
  # The toolkit this build used: the config's fallback when a consumer
  # names none.
  get_filename_component(FUSERLAB_CUDA_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
  set(FUSERLAB_CUDA_MAJOR ${CUDAToolkit_VERSION_MAJOR})
  install(EXPORT FuserLabTargets NAMESPACE FuserLab::
    DESTINATION ${config_dir} COMPONENT Development)
  configure_package_config_file(
    ${PROJECT_SOURCE_DIR}/cmake/FuserLabConfig.cmake.in
    ${PROJECT_BINARY_DIR}/FuserLabConfig.cmake
    INSTALL_DESTINATION ${config_dir})
  # 0.x: a minor version may change the API.
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/FuserLabConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/FuserLabConfig.cmake
                ${PROJECT_BINARY_DIR}/FuserLabConfigVersion.cmake
    DESTINATION ${config_dir} COMPONENT Development)
endfunction()

# fuserlab_add_test(<component> SOURCES <files...> DEPS <targets...>)
# One GoogleTest executable per component: fuserlab_<component>_tests.
function(fuserlab_add_test component)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  set(target fuserlab_${component}_tests)
  add_executable(${target} ${ARG_SOURCES})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${target} PRIVATE ${FUSERLAB_WARNINGS})
  target_link_libraries(${target} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_definitions(${target} PRIVATE
    FUSERLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS ${component})
endfunction()

# The executables' allocator. A compile allocates and frees tens of thousands
# of small objects (the segmenter builds a segment fusion for every merge it
# tries); tcmalloc's per-thread caches take about a third off the compile time
# against glibc's malloc (docs/performance.md, "Compile time"). Optional:
# without the library, or under a sanitizer (which brings its own allocator),
# the system allocator is used and everything else is the same.
option(FUSERLAB_TCMALLOC
  "Link the executables with tcmalloc (libtcmalloc-minimal4) when it is installed" ON)
find_library(FUSERLAB_TCMALLOC_LIBRARY
  NAMES tcmalloc_minimal libtcmalloc_minimal.so.4)

# fuserlab_use_fast_allocator(<executable>)
function(fuserlab_use_fast_allocator target)
  if(FUSERLAB_TCMALLOC AND FUSERLAB_TCMALLOC_LIBRARY AND NOT FUSERLAB_SANITIZE
     AND NOT CMAKE_CXX_FLAGS MATCHES "sanitize")
    # No symbol of ours names tcmalloc: keep it even where the linker drops
    # libraries it thinks unused (--as-needed, Ubuntu's default).
    target_link_libraries(${target} PRIVATE
      "-Wl,--push-state,--no-as-needed" ${FUSERLAB_TCMALLOC_LIBRARY}
      "-Wl,--pop-state")
  endif()
endfunction()
