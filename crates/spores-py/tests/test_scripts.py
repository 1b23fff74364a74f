"""spores.run (DML scripts with NumPy/SciPy inputs), spores.optimize, spores.equiv,
spores.tensor, errors and interruption."""

import pathlib
import signal
import threading
import time
import _thread

import numpy as np
import pytest
import scipy.sparse as sp

import spores
from conftest import assert_close, dense, sparse

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"


def test_inputs_bind_to_variables_and_outputs_come_back(rng):
    X = sparse(rng, 30, 20, density=0.1)
    y = dense(rng, 30, 1)
    out = spores.run(
        "G = t(X) %*% X\nb = t(X) %*% y\ns = sum(X)\nn = nrow(X)\n",
        X=X,
        y=y,
    )
    assert sorted(out) == ["G", "b", "n", "s"]
    assert_close(out["G"], (X.T @ X).toarray())
    assert_close(out["b"], X.T @ y)
    assert out["s"] == pytest.approx(X.sum())
    assert out["n"] == 30


def test_named_outputs_args_and_scalars(rng, capsys):
    a = dense(rng, 4, 4)
    out = spores.run(
        "k = $k\nB = A * k + c\nprint(\"k is \" + k)\nif (flag) { B = B + 1 }\n",
        args={"k": 3},
        outputs=["B"],
        A=a,
        c=0.5,
        flag=True,
    )
    assert list(out) == ["B"]
    assert_close(out["B"], a * 3 + 0.5 + 1)
    assert capsys.readouterr().out == "k is 3\n"


def test_round_trip_preserves_values_and_formats(rng):
    D = dense(rng, 5, 3)
    S = sparse(rng, 50, 40, density=0.02)
    out = spores.run("D2 = D\nS2 = S\n", D=D, S=S)
    np.testing.assert_array_equal(out["D2"], D)
    assert sp.issparse(out["S2"])
    np.testing.assert_array_equal(out["S2"].toarray(), S.toarray())


def test_frames_come_back_as_dicts_of_columns():
    out = spores.run(
        'F = cbind(as.frame(matrix("1.5 2 3.25 4", rows=2, cols=2)), frame(["x", "y"], rows=2, cols=1))\n'
        "[X, M] = transformencode(target=F, spec=\"{ids: true, recode: [3]}\")\n",
        outputs=["F", "X"],
    )
    assert out["F"] == {"C1": [1.5, 3.25], "C2": [2, 4], "C3": ["x", "y"]}
    np.testing.assert_array_equal(out["X"], [[1.5, 2, 1], [3.25, 4, 2]])


def test_control_flow_and_functions(rng):
    a = dense(rng, 6, 6) + 6 * np.eye(6)
    script = """
f = function(matrix[double] M, int k) return (matrix[double] R) {
  R = M
  for (i in 1:k) { R = R %*% M }
}
P = f(A, 2)
"""
    out = spores.run(script, A=a)
    assert_close(out["P"], a @ a @ a)


def test_script_file_path(tmp_path_factory):
    out = spores.run(str(EXAMPLES / "loss.dml"), args={"m": 40, "n": 30, "r": 3})
    assert isinstance(out["loss"], float)
    assert out["loss"] > 0


def test_lazy_matrices_as_script_inputs(rng):
    a = dense(rng, 3, 3)
    out = spores.run("B = A * 2", A=spores.matrix(a) + 1)
    assert_close(out["B"], (a + 1) * 2)


def test_parse_errors_name_line_and_column():
    with pytest.raises(spores.ParseError) as e:
        spores.run("x = 1\ny = x +* 2\n")
    assert "<script>:2:" in str(e.value)
    assert "^" in str(e.value)
    assert isinstance(e.value, spores.SporesError)


def test_shape_errors_carry_the_cli_message():
    with pytest.raises(spores.ShapeError) as e:
        spores.run("Z = X %*% Y\n", X=np.ones((2, 3)), Y=np.ones((2, 3)))
    assert "<script>:1:5: error: shape mismatch in %*%: left is 2x3, right is 2x3" in str(e.value)


def test_runtime_errors_and_stop():
    with pytest.raises(spores.ExecutionError, match="giving up"):
        spores.run('stop("giving up")\n')
    with pytest.raises(spores.SporesError, match="does not define an output `nope`"):
        spores.run("x = 1\n", outputs=["nope"])


def test_unsupported_constructs():
    with pytest.raises(spores.UnsupportedError, match="cannot find the sourced file"):
        spores.run('source("no/such/library.dml") as lib\nx = lib::f(1)\n')


def test_bad_input_types():
    with pytest.raises(TypeError):
        spores.run("y = x\n", x=object())


def test_ctrl_c_interrupts_a_long_run():
    # A loop of many small blocks; a simulated Ctrl-C arrives after 0.3 s. Python's own
    # SIGINT handler is installed for the test: a process started in the background by a
    # shell ignores SIGINT, and `interrupt_main` then does nothing.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            spores.run("s = 0\nfor (i in 1:100000000) { s = s + i }\n")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def test_gil_is_released_while_computing():
    # While another thread runs a script (about a second), this thread keeps running
    # Python: it could not if the computation held the GIL.
    done = threading.Event()
    worker = threading.Thread(
        target=lambda: (spores.run("s = 0\nfor (i in 1:100000) { s = s + i }\n"), done.set())
    )
    worker.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.0005)
    worker.join()
    assert ticks >= 100


def test_threads_setting(rng):
    before = spores.get_threads()
    spores.set_threads(1)
    assert spores.get_threads() == 1
    a = dense(rng, 50, 50)
    assert_close((spores.matrix(a) @ a).compute(), a @ a)
    spores.set_threads(before)
    with pytest.raises(ValueError):
        spores.set_threads(0)


def test_optimize_prints_plan_and_costs():
    text = spores.optimize("sum(X %*% Y)", X=(1000, 50), Y=(50, 1000))
    assert "# cost:" in text
    assert "verified equivalent" in text
    X = sp.random(100, 100, density=0.01, format="csr")
    text = spores.optimize("sum((X - U %*% t(V))^2)", X=X, U=(100, 5), V=(100, 5))
    assert "# cost:" in text


def test_optimize_errors():
    with pytest.raises(spores.ParseError):
        spores.optimize("sum(X %*%", X=(2, 2))


def test_equiv_decides_and_gives_witnesses():
    yes = spores.equiv("sum(A %*% B)", "sum(t(colSums(A)) * rowSums(B))", A=(4, 3), B=(3, 5))
    assert yes.equivalent is True
    no = spores.equiv("sum(A %*% B)", "sum(A) * sum(B)", A=(2, 3), B=(3, 2))
    assert no.equivalent is False
    w = no.witness
    a, b = w["A"], w["B"]
    assert a.shape == (2, 3) and b.shape == (3, 2)
    assert w["lhs"].item() == pytest.approx((a @ b).sum())
    assert w["rhs"].item() == pytest.approx(a.sum() * b.sum())
    assert w["lhs"].item() != pytest.approx(w["rhs"].item())


def test_equiv_with_positive_inputs():
    assert spores.equiv("log(A * B)", "log(A) + log(B)", A=(3, 2), B=(3, 2)).equivalent is False
    both = spores.equiv("log(A * B)", "log(A) + log(B)", positive=["A", "B"], A=(3, 2), B=(3, 2))
    assert both.equivalent is True
    with pytest.raises(spores.ShapeError):
        spores.equiv("A", "A", positive=["C"], A=(2, 2))


def test_tensor_triangles_and_degrees(rng):
    upper = sp.random(30, 30, density=0.2, random_state=7, format="csr")
    upper.data[:] = 1.0
    E = sp.triu(upper, 1)
    E = ((E + E.T) > 0).astype(np.float64).tocsr()
    out = spores.tensor(str(EXAMPLES / "tensor" / "triangles.tp"), E=E)
    dense_e = E.toarray()
    assert out["t"] == pytest.approx(np.trace(dense_e @ dense_e @ dense_e))
    assert_close(out["deg"], dense_e.sum(axis=1))


def test_tensor_order_three_and_dense_inputs(rng):
    S = np.zeros((4, 3, 2))
    S[0, 1, 0] = 1.0
    S[2, 0, 1] = 2.0
    S[3, 2, 1] = 1.0
    P, C = dense(rng, 3, 5), dense(rng, 2, 5)
    out = spores.tensor("X[i,j] = sum[p,c](S[i,p,c] * (P[p,j] + C[c,j]))\nT[i,p,c] = S[i,p,c] * 3\noutput X, T\n", S=S, P=P, C=C)
    expected = np.einsum("ipc,pj->ij", S, P) + np.einsum("ipc,cj->ij", S, C)
    assert_close(out["X"], expected)
    t = out["T"]
    assert isinstance(t, spores.CooTensor) and t.shape == (4, 3, 2)
    rebuilt = np.full(t.shape, t.fill)
    rebuilt[tuple(t.coords.T)] = t.values
    np.testing.assert_allclose(rebuilt, S * 3)


def test_tensor_parse_errors():
    with pytest.raises(spores.ParseError):
        spores.tensor("t = sum[i](E[i,", E=np.ones((2, 2)))


def test_mlir_opt_reassociates_a_matrix_chain():
    root = EXAMPLES.parent / "bench" / "mlir"
    text = (root / "cases" / "3mm.mlir").read_text()
    out = spores.mlir_opt(text, (root / "matmul.egg").read_text())
    assert out.startswith('"builtin.module"()')
    # The cheapest order multiplies the last two matrices first (250x150 by 150x10).
    first = out.index('"linalg.matmul"')
    assert "(tensor<250x150xi64>, tensor<150x10xi64>" in out[first : first + 1200]
    with pytest.raises(spores.SporesError):
        spores.mlir_opt("this is not mlir")
