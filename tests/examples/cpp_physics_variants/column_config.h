#define NZ 6
#define NSTEPS 20
#define DT 0.05d0
#define KDIFF 0.8d0
#define DOWNGRADIENT_FLUX(upper, lower, k) ((k) * ((upper) - (lower)))
