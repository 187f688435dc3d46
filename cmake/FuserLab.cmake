# Helpers that keep every folder's CMakeLists.txt to a few lines.

# -Wshadow=local (GCC): a local declared over another local of the same
# name, as the std::string that once hid the segmenter's final-merge flag.
set(FUSERLAB_WARNINGS -Wall -Wextra -Wno-unused-parameter
    $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>)

# fuserlab_add_library(<name> SOURCES <files...> DEPS <targets...>)
# One static library per folder; include paths are rooted at the repository,
# so code includes "core/ir/fusion.h".
function(fuserlab_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  if(FUSERLAB_PYTHON)
    # Linked into the Python extension, a shared object.
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${FUSERLAB_WARNINGS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
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
