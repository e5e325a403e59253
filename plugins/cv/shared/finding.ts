/** Shared by the field finders: a found value with its confidence, and the job-title vocabulary. */

/** A value a heuristic found, with how sure it is (0 = not found, see README "Confidence"). */
export interface Finding<T> {
  value: T;
  confidence: number;
}

export const notFound = <T>(value: T): Finding<T> => ({ value, confidence: 0 });

const ENGLISH_ROLES =
  'engineer|developer|programmer|manager|designer|consultant|analyst|director|specialist|scientist|officer|lead|' +
  'architect|intern|assistant|coordinator|administrator|accountant|teacher|nurse|technician|head|president|founder|' +
  'co-founder|owner|associate|executive|representative|editor|writer|researcher|recruiter|advisor|adviser|' +
  'supervisor|operator|cto|ceo|cfo|coo|vp|devops|sre|student|professor|lecturer|attorney|lawyer|marketer|' +
  'strategist|trainee|apprentice|mentor|freelancer|controller';
const ROMANCE_ROLES =
  'ing[ée]nieure?|d[ée]veloppeu(?:r|se)|chef|cheffe|responsable|comptable|directeur|directrice|consultante|analyste|' +
  'technicien(?:ne)?|charg[ée]e?|assistante|gestionnaire|conseill[eè]re?|infirmi[eè]re?|stagiaire|formateur|' +
  'formatrice|enseignante?|d[ée]veloppeur|desarrollador(?:a)?|ingenier[oa]|jef[ea]|contable|directora|' +
  'consultor(?:a)?|analista|t[ée]cnic[oa]|dise[ñn]ador(?:a)?|gerente|coordinador(?:a)?|asistente|enfermer[oa]|' +
  'profesor(?:a)?|sviluppat(?:ore|rice)|ingegnere|responsabile|contabile|direttore|direttrice|consulente|' +
  'progettista|impiegat[oa]|docente|engenheir[oa]|desenvolvedor(?:a)?|gestor(?:a)?|diretor(?:a)?|contabilista|' +
  'coordenador(?:a)?|formador(?:a)?|professora|junior|senior|freelance|medewerker|autónomo|aut[óo]noma|specialista|' +
  'especialista|sp[ée]cialiste|addett[oa]|administrativ[oa]|administrador(?:a)?|administrateur|administratrice|' +
  'arquitect[oa]|architetto|architecte|becari[oa]|stagista|tirocinante|estagi[áa]ri[oa]|respons[áa]vel|controllerin';
// German and Dutch compounds end in the role: Softwareentwickler, Projektleiterin, Verpleegkundige.
const COMPOUND_ROLES =
  '\\p{L}*(?:entwickler|leiter|berater|ingenieur|analyst|manager|angestellte|angestellter|kaufmann|kauffrau|referent|' +
  'sachbearbeiter|assistent|techniker|ontwikkelaar|leider|medewerker|analist|adviseur|kundige|beheerder|dozent|' +
  'docent|architekt|verk[äa]ufer|pfleger|mitarbeiter)(?:in|innen|en|e|r)?';

/**
 * Words that mark a line as a job title ("Senior Software Engineer", "Projektleiterin", "Chef de projet"), never a name
 * or a place.
 */
export const JOB_WORDS = new RegExp(
  `(?<![\\p{L}])(?:(?:${ENGLISH_ROLES})s?|${ROMANCE_ROLES}|${COMPOUND_ROLES})(?![\\p{L}])`,
  'iu',
);
