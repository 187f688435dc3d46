# ctest install_consumer (tests/install/CMakeLists.txt): cmake --install the
# build into WORK_DIR/prefix, check the programs, headers and package files
# are there, build the consumer project (FuserLab::core, ::db, ::tuner, ::viz) against the prefix with
# find_package(FuserLab), run it, and run the installed CLI.
cmake_minimum_required(VERSION 3.25)

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

set(expected
  bin/fuserlab-cli
  include/core/frontend/script.h
  include/core/compiler/fusion_compiler.h
  include/core/ir/random_numbers.inc
  include/db/database_provider.h
  include/tuner/shard.h
  include/viz/fusion_graph.h)
if(WITH_GUI)
  list(APPEND expected bin/fuserlab)
endif()
file(GLOB config_dirs ${prefix}/lib*/cmake/FuserLab ${prefix}/lib/*/cmake/FuserLab)
if(NOT config_dirs)
  message(FATAL_ERROR "no lib*/cmake/FuserLab under ${prefix}")
endif()
foreach(file FuserLabConfig.cmake FuserLabConfigVersion.cmake FuserLabTargets.cmake)
  if(NOT EXISTS ${config_dirs}/${file})
    message(FATAL_ERROR "${config_dirs}/${file} was not installed")
  endif()
endforeach()
foreach(file IN LISTS expected)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "${prefix}/${file} was not installed")
  endif()
endforeach()
# No source file or private build path leaks into the install tree's headers.
file(GLOB_RECURSE sources ${prefix}/include/*.cpp)
if(sources)
  message(FATAL_ERROR "sources installed as headers: ${sources}")
endif()

set(configure ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build
  -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(MAKE_PROGRAM)
  list(APPEND configure -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(CXX_LAUNCHER)
  list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()
if(CXX_FLAGS)
  list(APPEND configure "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
                        "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}")
endif()
if(CUDA_ROOT)
  list(APPEND configure -DCUDAToolkit_ROOT=${CUDA_ROOT})
endif()
run_step("configuring the consumer" ${configure})
run_step("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

run_step("running the consumer" ${WORK_DIR}/build/consumer ${WORK_DIR}/heuristics.db)
set(want "segments: 2\nsegment 0: reduction\nsegment 1: reduction\nmedian of 3, 1, 2: 2\nwith the database: 2 segments\nshard 2/3 of 10 items: 3\ngraph: 7 nodes\n")
if(NOT step_output STREQUAL want)
  message(FATAL_ERROR "the consumer printed\n${step_output}\nnot\n${want}")
endif()
message(STATUS "consumer: ${step_output}")

# Linking FuserLab::core does not make a program need the GPU driver
# (libcuda.so.1) to start: NVRTC and cuBLASLt come without CUDA::cuda_driver.
find_program(READELF readelf)
if(READELF)
  run_step("readelf" ${READELF} -d ${WORK_DIR}/build/consumer)
  if(step_output MATCHES "NEEDED[^\n]*libcuda\\.so")
    message(FATAL_ERROR "the consumer needs libcuda.so (the GPU driver) to start")
  endif()
endif()

# The installed CLI starts from the prefix (its run path finds NVRTC and
# cuBLASLt) and reads the built-in device table.
run_step("the installed fuserlab-cli" ${prefix}/bin/fuserlab-cli devices)
if(NOT step_output MATCHES "H100")
  message(FATAL_ERROR "fuserlab-cli devices printed\n${step_output}")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
