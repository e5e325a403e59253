/** The spec's page lists live in core/contract (office conversions take them too). */
export * from '../../../core/contract/page-ranges.js';
