"""SFPC from petsc4py: -Laplace(u) = 1 on the unit cube (7-point stencil on a DMDA, u = 0 on the
boundary), solved with the KSP and PC the options name. SFPC is loaded at initialization by
-dll_append; nothing else in the script knows about it.

  python3 examples/python/poisson.py -dll_append <prefix>/lib/libsfpc.so -pc_type sfilu
  python3 examples/python/poisson.py -dll_append ... -pc_type sfdilu -dm_mat_type aijcusparse -dm_vec_type cuda
  mpiexec -n 2 python3 examples/python/poisson.py -dll_append ... -ksp_type cg -pc_type afsai

Options: -n <points per direction> (default 16), and any KSP/PC/Mat/Vec option.
"""
import sys

import petsc4py

petsc4py.init(sys.argv)  # -dll_append is read here: PETSc registers SFPC's types while it initializes
from petsc4py import PETSc  # noqa: E402 (after init, by petsc4py's rules)


def assemble_laplacian(da, A):
    """The 7-point Laplacian with Dirichlet zeros outside the cube, row by row in this rank's box."""
    (xs, xe), (ys, ye), (zs, ze) = da.getRanges()
    mx, my, mz = da.getSizes()
    row, col = PETSc.Mat.Stencil(), PETSc.Mat.Stencil()
    for k in range(zs, ze):
        for j in range(ys, ye):
            for i in range(xs, xe):
                row.index = (i, j, k)
                A.setValueStencil(row, row, 6.0)
                for di, dj, dk in ((-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)):
                    c = (i + di, j + dj, k + dk)
                    if 0 <= c[0] < mx and 0 <= c[1] < my and 0 <= c[2] < mz:
                        col.index = c
                        A.setValueStencil(row, col, -1.0)
    A.assemble()


def main():
    opts = PETSc.Options()
    n = opts.getInt("n", 16)
    da = PETSc.DMDA().create(dim=3, sizes=(n, n, n), dof=1, stencil_width=1, stencil_type=PETSc.DMDA.StencilType.STAR, setup=False)
    da.setFromOptions()  # -dm_mat_type aijcusparse -dm_vec_type cuda put everything on the GPU
    da.setUp()
    A = da.createMat()
    assemble_laplacian(da, A)
    b = da.createGlobalVec()
    x = b.duplicate()
    b.set(1.0)

    ksp = PETSc.KSP().create(comm=da.comm)
    ksp.setOperators(A)
    ksp.setTolerances(rtol=1e-8)
    ksp.setFromOptions()
    ksp.solve(b, x)

    r = b.duplicate()
    A.mult(x, r)
    r.aypx(-1.0, b)
    small = r.norm() <= 1e-7 * b.norm()
    PETSc.Sys.Print(
        f"{n}^3, {da.comm.getSize()} rank(s), {A.getType()}: KSP {ksp.getType()}, PC {ksp.getPC().getType()}: "
        f"{ksp.getConvergedReason() > 0 and 'converged' or 'NOT converged'} in {ksp.getIterationNumber()} iterations; "
        f"||b - A x|| <= 1e-7 ||b||: {'yes' if small else 'NO'}"
    )


if __name__ == "__main__":
    main()
