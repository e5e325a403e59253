import { z } from 'zod';
import { requiredAs } from '../shared/options.js';

const ANGLES = [90, 180, 270];
const ANGLE_RULE = '90, 180 or 270';

export const rotateOptions = z.object({
  angle: z
    .number({ error: requiredAs(ANGLE_RULE) })
    .int({ error: `must be ${ANGLE_RULE}` })
    .refine((angle) => ANGLES.includes(angle), { error: `must be ${ANGLE_RULE}` })
    // The enum is for the JSON Schema (OpenAPI, GraphQL's Int): the refine above is what checks it.
    .meta({ description: 'Clockwise rotation in degrees applied to every page: 90, 180 or 270.', enum: [...ANGLES] }),
});
