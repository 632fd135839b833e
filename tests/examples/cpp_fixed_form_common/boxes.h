#ifndef BOXES_DEFINES
#define BOXES_DEFINES
#define NBOX 3
#define RELAX(a, b, r) ((r) * ((b) - (a)))
#endif
      DOUBLE PRECISION TRC(NBOX), VOL(NBOX), PSI
      COMMON /BOXES/ TRC, VOL, PSI
