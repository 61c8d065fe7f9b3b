/* cold_trivial.c -- the one trivial shared library of the cold start's second and third floors
 * (cold_empty.c's WITH_SO): what loading any one more .so costs the dynamic loader. */
int cold_trivial(void) { return 1; }
