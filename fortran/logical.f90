! gfortran's .TRUE. and .FALSE. for default LOGICAL as C ints: glue/helpers.c reads them when
! libmpifort_abi is loaded and gives them to libmpi_abi (MPI_Abi_set_fortran_booleans), which the
! LAND / LOR / LXOR reductions of MPI_LOGICAL need.
SUBROUTINE baton_f_logical_values(true_value, false_value) BIND(C, NAME="baton_f_logical_values")
  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_INT
  IMPLICIT NONE
  INTEGER(C_INT), INTENT(OUT) :: true_value, false_value
  true_value = TRANSFER(.TRUE., 0_C_INT)
  false_value = TRANSFER(.FALSE., 0_C_INT)
END SUBROUTINE baton_f_logical_values
