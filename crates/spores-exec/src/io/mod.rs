//! Matrix file formats: Matrix Market, CSV and NumPy `.npy`.
