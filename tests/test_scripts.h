// FusionDefinition scripts that tests of several parts (scheduler, codegen)
// compile at their own sizes.
#pragma once

namespace fuserlab::test_scripts {

//! A column sum: bf16 [rows, columns] summed over dim 0 (the suite's
//! col_sum).
inline constexpr const char* kColSum =
    "from nvfuser import FusionDefinition, DataType\n"
    "def f(fd : FusionDefinition) -> None :\n"
    "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
    "dtype=DataType.BFloat16, is_cpu=False)\n"
    "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
    "    T2 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)\n"
    "    fd.add_output(T2)\n";

}  // namespace fuserlab::test_scripts
