/* Message volume for bench/mpi_bench.py: loaded with LD_PRELOAD, it
 * interposes the PMPI entry points that OpenMPI's Fortran bindings call
 * (and through which OAD_mpi's calls go too) and adds up the bytes this
 * rank hands to send operations: point-to-point sends to a real peer,
 * and for collectives what this rank contributes (the root's whole buffer
 * for bcast and scatter). Printed to stderr at MPI_Finalize as
 * "MPI_BYTES_SENT RANK BYTES". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

static long long sent = 0;

static long long bytes(int count, MPI_Datatype type) {
    int size = 0;
    PMPI_Type_size(type, &size);
    return (long long)count * size;
}

static int my_rank(MPI_Comm comm) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

static int comm_size(MPI_Comm comm) {
    int size = 1;
    PMPI_Comm_size(comm, &size);
    return size;
}

/* The next definition of NAME (OpenMPI's own). */
#define NEXT(type, name) \
    static type next = 0; \
    if (!next) next = (type)dlsym(RTLD_NEXT, name)

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*sendrecv_fn)(const void *, int, MPI_Datatype, int, int, void *, int,
                           MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*reduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
typedef int (*bcast_fn)(void *, int, MPI_Datatype, int, MPI_Comm);
typedef int (*gather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int,
                         MPI_Comm);
typedef int (*allgather_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                            MPI_Comm);
typedef int (*finalize_fn)(void);

int PMPI_Send(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm) {
    NEXT(send_fn, "PMPI_Send");
    if (dest != MPI_PROC_NULL) sent += bytes(c, t);
    return next(b, c, t, dest, tag, comm);
}

int PMPI_Isend(const void *b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
               MPI_Request *r) {
    NEXT(isend_fn, "PMPI_Isend");
    if (dest != MPI_PROC_NULL) sent += bytes(c, t);
    return next(b, c, t, dest, tag, comm, r);
}

int PMPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int dest, int stag, void *rb,
                  int rc, MPI_Datatype rt, int source, int rtag, MPI_Comm comm,
                  MPI_Status *status) {
    NEXT(sendrecv_fn, "PMPI_Sendrecv");
    if (dest != MPI_PROC_NULL) sent += bytes(sc, st);
    return next(sb, sc, st, dest, stag, rb, rc, rt, source, rtag, comm, status);
}

int PMPI_Allreduce(const void *sb, void *rb, int c, MPI_Datatype t, MPI_Op op,
                   MPI_Comm comm) {
    NEXT(allreduce_fn, "PMPI_Allreduce");
    if (comm_size(comm) > 1) sent += bytes(c, t);
    return next(sb, rb, c, t, op, comm);
}

int PMPI_Reduce(const void *sb, void *rb, int c, MPI_Datatype t, MPI_Op op, int root,
                MPI_Comm comm) {
    NEXT(reduce_fn, "PMPI_Reduce");
    if (my_rank(comm) != root) sent += bytes(c, t);
    return next(sb, rb, c, t, op, root, comm);
}

int PMPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm) {
    NEXT(bcast_fn, "PMPI_Bcast");
    if (my_rank(comm) == root && comm_size(comm) > 1) sent += bytes(c, t);
    return next(b, c, t, root, comm);
}

int PMPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                int root, MPI_Comm comm) {
    NEXT(gather_fn, "PMPI_Gather");
    if (my_rank(comm) != root) sent += bytes(sc, st);
    return next(sb, sc, st, rb, rc, rt, root, comm);
}

int PMPI_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                 int root, MPI_Comm comm) {
    NEXT(gather_fn, "PMPI_Scatter");
    if (my_rank(comm) == root) sent += bytes(sc, st) * (comm_size(comm) - 1);
    return next(sb, sc, st, rb, rc, rt, root, comm);
}

int PMPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                   MPI_Datatype rt, MPI_Comm comm) {
    NEXT(allgather_fn, "PMPI_Allgather");
    if (comm_size(comm) > 1) sent += bytes(sc, st);
    return next(sb, sc, st, rb, rc, rt, comm);
}

int PMPI_Finalize(void) {
    NEXT(finalize_fn, "PMPI_Finalize");
    fprintf(stderr, "MPI_BYTES_SENT %d %lld\n", my_rank(MPI_COMM_WORLD), sent);
    return next();
}
