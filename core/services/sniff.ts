/**
 * Content sniffing lives in core/contract/sniff.ts, beside the text decoding it uses, so the
 * conformance kit (core/contract/testing.ts) judges plugin outputs exactly as uploads are judged
 * without reaching up into the services. Re-exported here for the upload service.
 */
export { checkContent, checkText, headText, isTextDetection, type TextVerdict } from '../contract/sniff.js';
