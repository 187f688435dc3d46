# Style D (test style): a pytest test function with a
# @pytest.mark.skipif decorator holding everything (inputs, nested
# fusion_func, with-block, execute), called at the bottom of the script.
import pytest
import torch
from nvfuser_direct import FusionDefinition, DataType


@pytest.mark.skipif(torch.cuda.device_count() > 8, reason="illustrative only")
def test_relu_rowsum():
    inputs = [torch.randn(30, 45, device="cuda", dtype=torch.float32)]

    def fusion_func(fd: FusionDefinition) -> None:
        t0 = fd.from_pytorch(inputs[0])
        t1 = fd.ops.relu(t0)
        t2 = fd.ops.sum(t1, dims=[1], keepdim=False)
        fd.add_output(t2)

    with FusionDefinition() as fd:
        fusion_func(fd)
    nvf_out = fd.execute(inputs)
    torch.testing.assert_close(nvf_out[0], inputs[0].relu().sum(1))


test_relu_rowsum()
