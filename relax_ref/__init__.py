"""relax_ref: a reference implementation of the Relax IR."""
