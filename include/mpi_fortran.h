/*
 * mpi_fortran.h -- C <-> Fortran handle conversion on the standard ABI.
 *
 * The MPI-5.0 standard ABI has no MPI_Fint and exports no MPI_<Handle>_c2f / _f2c: a handle
 * crosses to Fortran as the integer of MPI_<Handle>_toint / _fromint. This header (the one the MPI
 * Forum's ABI stubs give the same role) spells the classic names over those functions, so code
 * written for MPICH or Open MPI (mpi4py among it) compiles unchanged, and a program built with it
 * still runs on any standard-ABI library: the calls it makes are MPI_<Handle>_toint / _fromint.
 *
 * mpix.h includes it (define BATON_NO_MPI_FORTRAN_H before including mpi.h to leave it out).
 * MPI_Fint is a C int, gfortran's default INTEGER; define MPI_ABI_Fint to another integer type
 * for a Fortran compiled with 8-byte INTEGERs.
 */
#ifndef BATON_MPI_FORTRAN_H
#define BATON_MPI_FORTRAN_H

#include "mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MPI_ABI_Fint
#define MPI_ABI_Fint int
#endif
typedef MPI_ABI_Fint MPI_Fint;

/* A status as the integer array of Fortran's `INTEGER status(MPI_STATUS_SIZE)`: MPI_SOURCE,
 * MPI_TAG, MPI_ERROR, then the library's words, in MPI_Status order (MPI_F_STATUS_SIZE in all). */
static inline int MPIX_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    int i;
    f_status[MPI_F_SOURCE] = (MPI_Fint)c_status->MPI_SOURCE;
    f_status[MPI_F_TAG] = (MPI_Fint)c_status->MPI_TAG;
    f_status[MPI_F_ERROR] = (MPI_Fint)c_status->MPI_ERROR;
    for (i = 0; i < MPI_F_STATUS_SIZE - 3; i++) f_status[3 + i] = (MPI_Fint)c_status->MPI_internal[i];
    return MPI_SUCCESS;
}

static inline int MPIX_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    int i;
    c_status->MPI_SOURCE = (int)f_status[MPI_F_SOURCE];
    c_status->MPI_TAG = (int)f_status[MPI_F_TAG];
    c_status->MPI_ERROR = (int)f_status[MPI_F_ERROR];
    for (i = 0; i < MPI_F_STATUS_SIZE - 3; i++) c_status->MPI_internal[i] = (int)f_status[3 + i];
    return MPI_SUCCESS;
}

#define MPI_Comm_c2f(h)       ((MPI_Fint)MPI_Comm_toint(h))
#define MPI_Errhandler_c2f(h) ((MPI_Fint)MPI_Errhandler_toint(h))
#define MPI_File_c2f(h)       ((MPI_Fint)MPI_File_toint(h))
#define MPI_Group_c2f(h)      ((MPI_Fint)MPI_Group_toint(h))
#define MPI_Info_c2f(h)       ((MPI_Fint)MPI_Info_toint(h))
#define MPI_Message_c2f(h)    ((MPI_Fint)MPI_Message_toint(h))
#define MPI_Op_c2f(h)         ((MPI_Fint)MPI_Op_toint(h))
#define MPI_Request_c2f(h)    ((MPI_Fint)MPI_Request_toint(h))
#define MPI_Session_c2f(h)    ((MPI_Fint)MPI_Session_toint(h))
#define MPI_Type_c2f(h)       ((MPI_Fint)MPI_Type_toint(h))
#define MPI_Win_c2f(h)        ((MPI_Fint)MPI_Win_toint(h))
#define MPI_Comm_f2c(i)       MPI_Comm_fromint((int)(i))
#define MPI_Errhandler_f2c(i) MPI_Errhandler_fromint((int)(i))
#define MPI_File_f2c(i)       MPI_File_fromint((int)(i))
#define MPI_Group_f2c(i)      MPI_Group_fromint((int)(i))
#define MPI_Info_f2c(i)       MPI_Info_fromint((int)(i))
#define MPI_Message_f2c(i)    MPI_Message_fromint((int)(i))
#define MPI_Op_f2c(i)         MPI_Op_fromint((int)(i))
#define MPI_Request_f2c(i)    MPI_Request_fromint((int)(i))
#define MPI_Session_f2c(i)    MPI_Session_fromint((int)(i))
#define MPI_Type_f2c(i)       MPI_Type_fromint((int)(i))
#define MPI_Win_f2c(i)        MPI_Win_fromint((int)(i))
#define MPI_Status_c2f        MPIX_Status_c2f
#define MPI_Status_f2c        MPIX_Status_f2c

#define PMPI_Comm_c2f(h)       ((MPI_Fint)PMPI_Comm_toint(h))
#define PMPI_Errhandler_c2f(h) ((MPI_Fint)PMPI_Errhandler_toint(h))
#define PMPI_File_c2f(h)       ((MPI_Fint)PMPI_File_toint(h))
#define PMPI_Group_c2f(h)      ((MPI_Fint)PMPI_Group_toint(h))
#define PMPI_Info_c2f(h)       ((MPI_Fint)PMPI_Info_toint(h))
#define PMPI_Message_c2f(h)    ((MPI_Fint)PMPI_Message_toint(h))
#define PMPI_Op_c2f(h)         ((MPI_Fint)PMPI_Op_toint(h))
#define PMPI_Request_c2f(h)    ((MPI_Fint)PMPI_Request_toint(h))
#define PMPI_Session_c2f(h)    ((MPI_Fint)PMPI_Session_toint(h))
#define PMPI_Type_c2f(h)       ((MPI_Fint)PMPI_Type_toint(h))
#define PMPI_Win_c2f(h)        ((MPI_Fint)PMPI_Win_toint(h))
#define PMPI_Comm_f2c(i)       PMPI_Comm_fromint((int)(i))
#define PMPI_Errhandler_f2c(i) PMPI_Errhandler_fromint((int)(i))
#define PMPI_File_f2c(i)       PMPI_File_fromint((int)(i))
#define PMPI_Group_f2c(i)      PMPI_Group_fromint((int)(i))
#define PMPI_Info_f2c(i)       PMPI_Info_fromint((int)(i))
#define PMPI_Message_f2c(i)    PMPI_Message_fromint((int)(i))
#define PMPI_Op_f2c(i)         PMPI_Op_fromint((int)(i))
#define PMPI_Request_f2c(i)    PMPI_Request_fromint((int)(i))
#define PMPI_Session_f2c(i)    PMPI_Session_fromint((int)(i))
#define PMPI_Type_f2c(i)       PMPI_Type_fromint((int)(i))
#define PMPI_Win_f2c(i)        PMPI_Win_fromint((int)(i))
#define PMPI_Status_c2f        MPIX_Status_c2f
#define PMPI_Status_f2c        MPIX_Status_f2c

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BATON_MPI_FORTRAN_H */
