import { z } from 'zod';

/** mute-video takes no wire fields. */
export const muteVideoOptions = z.object({});
