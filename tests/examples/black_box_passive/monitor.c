/* Diagnostics of the tracer field, from a C library whose source the
 * model's build does not give to openad: total mass and the number of
 * cells below zero. Called from Fortran (by reference, trailing
 * underscore). */
void monitor_tracer_(const int *n, const double *c, const double *dx,
                     double *mass, int *negative)
{
    double total = 0.0;
    int count = 0;
    for (int i = 0; i < *n; i++) {
        total += c[i] * (*dx);
        if (c[i] < 0.0)
            count++;
    }
    *mass = total;
    *negative = count;
}

/* Smallest and largest value of the field. */
void record_extremes_(const int *n, const double *c, double *lo, double *hi)
{
    double a = c[0], b = c[0];
    for (int i = 1; i < *n; i++) {
        if (c[i] < a)
            a = c[i];
        if (c[i] > b)
            b = c[i];
    }
    *lo = a;
    *hi = b;
}

/* Inflow observed at step k (a table of the observation library): it
 * replaces the modelled inflow, so nothing of the inputs reaches it. */
void observed_inflow_(const int *k, double *inflow)
{
    *inflow = 0.8 + 0.01 * (double)(*k);
}
