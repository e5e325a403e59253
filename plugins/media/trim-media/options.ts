import { z } from 'zod';

export const trimMediaOptions = z.object({
  trim: z
    .strictObject({
      start: z.number().min(0, 'start must be 0 or more seconds'),
      end: z.number().positive('end must be more than 0 seconds'),
    })
    .refine((trim) => trim.end > trim.start, { message: 'end must be after start', path: ['end'] })
    .describe(
      '{start, end} in seconds from the beginning of the media; end after start. The cut is a lossless stream copy, ' +
        'so video starts on the keyframe at or before start.',
    ),
});

export type TrimOptions = z.output<typeof trimMediaOptions>;
