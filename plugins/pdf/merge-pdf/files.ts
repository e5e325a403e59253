/** How many PDFs one merge takes: the manifest's limits and the run's check. */
export const MIN_FILES = 2;
export const MAX_FILES = 50;
