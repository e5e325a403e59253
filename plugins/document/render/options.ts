import { z } from 'zod';

/** Rendering takes no options: the model decides what the Markdown, HTML or text hold. */
export const renderOptions = z.object({});
