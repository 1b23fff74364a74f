//! spores: DAG, interpreter and command line.
