/**
 * Vocabulary of the second CV generator, written apart from bench/cv/corpus (nothing is imported
 * from it): people, places, employers with their legal forms, job titles, schools and the words
 * each template uses, in seven locales.
 */
import type { Lang } from '../corpus/model.js';

export interface Place {
  city: string;
  /** Country, or a US state code. */
  region: string;
  street: string;
  postcode: string;
}

export interface LocaleVocab {
  first: string[];
  last: string[];
  places: Place[];
  /** Company name stems; a legal form is appended from `suffixes` (sometimes none). */
  companies: string[];
  suffixes: string[];
  titles: string[];
  /** Internship titles: held during studies, never counted as experience. */
  interns: string[];
  degrees: string[];
  schools: string[];
  skills: string[];
  spoken: string[];
  months: string[];
  present: string;
  since: string;
  to: string;
  words: {
    cv: string;
    experience: string[];
    education: string[];
    skills: string[];
    languages: string;
    profile: string[];
    personal: string;
    name: string;
    address: string;
    phone: string;
    email: string;
    positions: string;
    references: string;
    summary: string;
  };
  phone: (r: () => number) => string;
  bullets: string[];
}

const digits = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');

export const VOCAB: Record<Lang, LocaleVocab> = {
  en: {
    first: ['Olivia', 'Marcus', 'Hannah', 'Theo', 'Priya', 'Gareth', 'Naomi', 'Declan', 'Imogen', 'Tobias'],
    last: ['Whitfield', 'Okafor', 'Brennan', 'Lindqvist', 'Castellano', 'Pemberton', 'Nakamura', 'Fairbairn', 'Ashworth', 'Delaney'],
    places: [
      { city: 'Seattle', region: 'WA', street: '1420 Pine Street', postcode: '98101' },
      { city: 'Austin', region: 'TX', street: '88 Rainey Street', postcode: '78701' },
      { city: 'Manchester', region: 'United Kingdom', street: '14 Deansgate', postcode: 'M3 2BA' },
      { city: 'Denver', region: 'CO', street: '2200 Larimer Street', postcode: '80205' },
      { city: 'Leeds', region: 'United Kingdom', street: '5 Park Row', postcode: 'LS1 5HD' },
      { city: 'Portland', region: 'OR', street: '901 Alder Street', postcode: '97205' },
    ],
    companies: ['Homenick - Balistreri', 'Bright-Harbor Logistics', 'Northwind Analytics', 'Kessler & Boyd', 'Redwood-Lane Capital', 'Bluefin Health Partners', 'Cobalt Ridge Software', 'Marlowe-Quinn Media', 'Tidewater Freight', 'Sterling Oak Insurance'],
    suffixes: ['LLC', 'Inc.', 'Ltd', 'LLP', 'Corp.'],
    titles: ['Senior Data Analyst', 'Operations Manager', 'Software Developer', 'Product Owner', 'Account Executive', 'Financial Controller', 'Supply Chain Planner', 'UX Researcher', 'Site Reliability Engineer', 'Marketing Coordinator'],
    interns: ['Summer Intern', 'Engineering Intern', 'Marketing Intern'],
    degrees: ['B.Sc. in Computer Science', 'MBA', 'B.A. in Economics', 'M.Sc. in Statistics', 'B.Eng. in Mechanical Engineering'],
    schools: ['University of Washington', 'University of Leeds', 'Colorado State University', 'University of Manchester', 'Portland State University'],
    skills: ['SQL', 'Tableau', 'Python', 'Salesforce', 'Jira', 'Power BI', 'Lean Six Sigma', 'Kubernetes', 'Figma', 'SAP S/4HANA', 'Negotiation', 'Budgeting'],
    spoken: ['English', 'Spanish', 'French'],
    months: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
    present: 'Present',
    since: 'Since',
    to: 'to',
    words: {
      cv: 'Résumé',
      experience: ['Professional Experience', 'Work History', 'Employment History', 'Career History'],
      education: ['Education', 'Academic Background', 'Qualifications'],
      skills: ['Core Competencies', 'Skills', 'Technical Proficiencies'],
      languages: 'Languages',
      profile: ['Summary', 'Professional Summary', 'About Me'],
      personal: 'Personal information',
      name: 'Name',
      address: 'Address',
      phone: 'Telephone',
      email: 'E-mail',
      positions: 'Appointments',
      references: 'References available on request',
      summary: 'Summary of Qualifications',
    },
    phone: (r) => `(${digits(r, 3).replace(/^0/, '4')}) ${digits(r, 3)}-${digits(r, 4)}`,
    bullets: ['Cut reporting time by 40% by automating weekly dashboards', 'Led a team of six across two sites', 'Negotiated supplier contracts worth $2M a year', 'Introduced code review and release checklists', 'Grew the client base from 30 to 85 accounts'],
  },
  de: {
    first: ['Lena', 'Jonas', 'Mareike', 'Felix', 'Annika', 'Matthias', 'Svenja', 'Lukas', 'Friederike', 'Timo'],
    last: ['Hoffmann', 'Brandt', 'Wegener', 'Schulte-Hagen', 'Krämer', 'Voigt', 'Lindemann', 'Ziegler', 'Albrecht', 'Engel'],
    places: [
      { city: 'Köln', region: 'Deutschland', street: 'Ehrenstraße 41', postcode: '50672' },
      { city: 'Leipzig', region: 'Deutschland', street: 'Karl-Liebknecht-Straße 9', postcode: '04107' },
      { city: 'Graz', region: 'Österreich', street: 'Herrengasse 3', postcode: '8010' },
      { city: 'Bremen', region: 'Deutschland', street: 'Am Wall 120', postcode: '28195' },
      { city: 'Basel', region: 'Schweiz', street: 'Steinenvorstadt 22', postcode: '4051' },
      { city: 'Nürnberg', region: 'Deutschland', street: 'Königstraße 18', postcode: '90402' },
    ],
    companies: ['Rheinwerk Systemtechnik', 'Möller-Kaufmann Logistik', 'Hansa Datenservice', 'Brückner & Söhne', 'Alpen-Energie Vertrieb', 'Nordlicht Versicherungen', 'Weber - Stahlbau', 'Fischer Medizintechnik', 'Elbtal Consulting', 'Sonnenberg Software'],
    suffixes: ['GmbH', 'AG', 'GmbH & Co. KG', 'KG', 'SE'],
    titles: ['Projektleiterin IT', 'Vertriebsleiter', 'Softwareentwickler', 'Controllerin', 'Personalreferentin', 'Teamleiter Logistik', 'Systemadministrator', 'Produktmanagerin', 'Einkaufsleiter', 'Datenanalystin'],
    interns: ['Praktikant', 'Werkstudentin', 'Praktikantin Marketing'],
    degrees: ['M.Sc. Wirtschaftsinformatik', 'B.A. Betriebswirtschaftslehre', 'Diplom-Ingenieur Maschinenbau', 'B.Sc. Informatik', 'M.A. Germanistik'],
    schools: ['Universität zu Köln', 'Universität Leipzig', 'TU Graz', 'Hochschule Bremen', 'Universität Basel'],
    skills: ['SAP FI/CO', 'Java', 'Scrum', 'MS Project', 'DATEV', 'Python', 'Docker', 'Excel (VBA)', 'Verhandlungsführung', 'ITIL', 'Linux', 'Power BI'],
    spoken: ['Deutsch', 'Englisch', 'Französisch'],
    months: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
    present: 'heute',
    since: 'seit',
    to: 'bis',
    words: {
      cv: 'Lebenslauf',
      experience: ['Beruflicher Werdegang', 'Berufliche Stationen', 'Praxiserfahrung', 'Berufspraxis'],
      education: ['Ausbildung', 'Studium', 'Bildungsweg'],
      skills: ['Fähigkeiten', 'Kompetenzen', 'IT-Kenntnisse'],
      languages: 'Sprachen',
      profile: ['Kurzprofil', 'Über mich', 'Profil'],
      personal: 'Persönliche Angaben',
      name: 'Name',
      address: 'Anschrift',
      phone: 'Telefon',
      email: 'E-Mail',
      positions: 'Anstellungen',
      references: 'Referenzen auf Anfrage',
      summary: 'Qualifikationen im Überblick',
    },
    phone: (r) => `+49 ${digits(r, 3).replace(/^0/, '1')} ${digits(r, 7)}`,
    bullets: ['Einführung eines neuen ERP-Moduls an drei Standorten', 'Führung von acht Mitarbeitenden', 'Senkung der Lagerkosten um 15 %', 'Betreuung von Schlüsselkunden in der DACH-Region'],
  },
  fr: {
    first: ['Camille', 'Julien', 'Élodie', 'Mathieu', 'Sophie', 'Antoine', 'Margaux', 'Nicolas', 'Inès', 'Romain'],
    last: ['Lefèvre', 'Moreau', 'Girard', 'Fontaine-Roux', 'Chevalier', 'Mercier', 'Blanchard', 'Gauthier', 'Perrin', 'Lambert'],
    places: [
      { city: 'Lyon', region: 'France', street: '12 rue de la République', postcode: '69002' },
      { city: 'Nantes', region: 'France', street: '4 quai de la Fosse', postcode: '44000' },
      { city: 'Liège', region: 'Belgique', street: '27 boulevard d’Avroy', postcode: '4000' },
      { city: 'Toulouse', region: 'France', street: '9 allées Jean Jaurès', postcode: '31000' },
      { city: 'Genève', region: 'Suisse', street: '15 rue du Rhône', postcode: '1204' },
      { city: 'Lille', region: 'France', street: '31 rue Nationale', postcode: '59800' },
    ],
    companies: ['Durand - Lemaire Conseil', 'Groupement Agri-Ouest', 'Transports Vallée du Rhône', 'Atelier Bois-Colombes', 'Solutions Numériques Garonne', 'Pharmacie Centrale du Nord', 'Banque Hélvétique Privée', 'Studio Lumière-Bleue', 'Cabinet Morel & Associés', 'Énergies Littoral'],
    suffixes: ['S.A.', 'SAS', 'SCS', 'GIE', 'SARL'],
    titles: ['Chef de projet digital', 'Responsable des achats', 'Ingénieure logiciel', 'Contrôleur de gestion', 'Chargée de communication', 'Directeur commercial', 'Analyste financière', 'Responsable qualité', 'Développeur web', 'Consultante RH'],
    interns: ['Stagiaire', 'Stagiaire en marketing', 'Alternant'],
    degrees: ['Master Management', 'Licence Informatique', 'Diplôme d’ingénieur', 'Master Finance', 'BTS Commerce international'],
    schools: ['Université Lyon 2', 'Université de Nantes', 'Université de Liège', 'INSA Toulouse', 'Université de Genève'],
    skills: ['Pack Office', 'SAP', 'Gestion de projet', 'JavaScript', 'Salesforce', 'Photoshop', 'Comptabilité analytique', 'SQL', 'Prise de parole', 'Jira', 'WordPress', 'Power BI'],
    spoken: ['Français', 'Anglais', 'Espagnol'],
    months: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
    present: 'aujourd’hui',
    since: 'Depuis',
    to: 'à',
    words: {
      cv: 'Curriculum vitae',
      experience: ['Parcours professionnel', 'Expériences', 'Expérience professionnelle', 'Emplois occupés'],
      education: ['Formation', 'Diplômes', 'Études'],
      skills: ['Compétences', 'Savoir-faire', 'Compétences clés'],
      languages: 'Langues',
      profile: ['Profil', 'À propos', 'Résumé'],
      personal: 'Informations personnelles',
      name: 'Nom',
      address: 'Adresse',
      phone: 'Téléphone',
      email: 'Courriel',
      positions: 'Postes occupés',
      references: 'Références sur demande',
      summary: 'Synthèse des compétences',
    },
    phone: (r) => `+33 ${1 + Math.floor(r() * 7)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
    bullets: ['Pilotage d’un budget de 1,2 M€', 'Encadrement d’une équipe de cinq personnes', 'Refonte du site marchand', 'Mise en place d’indicateurs mensuels'],
  },
  es: {
    first: ['Lucía', 'Javier', 'Marta', 'Alejandro', 'Carmen', 'Sergio', 'Paula', 'Diego', 'Nuria', 'Andrés'],
    last: ['García', 'Martín', 'Navarro', 'Ruiz-Tagle', 'Ortega', 'Delgado', 'Serrano', 'Molina', 'Castro', 'Iglesias'],
    places: [
      { city: 'Zaragoza', region: 'España', street: 'Calle Alfonso I, 15', postcode: '50003' },
      { city: 'Valencia', region: 'España', street: 'Avenida del Puerto 102', postcode: '46023' },
      { city: 'Bilbao', region: 'España', street: 'Gran Vía 44', postcode: '48011' },
      { city: 'Sevilla', region: 'España', street: 'Calle Sierpes 8', postcode: '41004' },
      { city: 'Málaga', region: 'España', street: 'Calle Larios 3', postcode: '29005' },
      { city: 'Granada', region: 'España', street: 'Calle Recogidas 21', postcode: '18002' },
    ],
    companies: ['Vidal - Ferrer Ingeniería', 'Construcciones Ebro', 'Distribuciones Levante', 'Grupo Alimentario Sur', 'Tecnologías Cantábrico', 'Seguros Mar-Azul', 'Logística Ibérica Norte', 'Consultores Giralda', 'Editorial Alhambra', 'Energías del Mediterráneo'],
    suffixes: ['S.A.', 'S.L.', 'S.L.U.', 'S.A.U.'],
    titles: ['Jefa de proyectos', 'Ingeniero de software', 'Responsable de compras', 'Analista de datos', 'Técnica de recursos humanos', 'Director financiero', 'Administrativo contable', 'Coordinadora de marketing', 'Gestor de cuentas', 'Arquitecta de sistemas'],
    interns: ['Becario', 'Prácticas en ingeniería', 'Becaria de marketing'],
    degrees: ['Grado en Ingeniería Informática', 'Máster en Dirección de Empresas', 'Licenciatura en Economía', 'Grado en Marketing', 'Máster en Finanzas'],
    schools: ['Universidad de Zaragoza', 'Universitat de València', 'Universidad de Deusto', 'Universidad de Sevilla', 'Universidad de Málaga'],
    skills: ['Excel avanzado', 'SAP', 'Java', 'AutoCAD', 'Contabilidad', 'SQL', 'Google Ads', 'Scrum', 'Atención al cliente', 'Python', 'Power BI', 'Negociación'],
    spoken: ['Español', 'Inglés', 'Catalán'],
    months: ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'],
    present: 'actualidad',
    since: 'Desde',
    to: 'a',
    words: {
      cv: 'Currículum vitae',
      experience: ['Trayectoria profesional', 'Experiencia laboral', 'Historial profesional', 'Experiencia'],
      education: ['Formación académica', 'Estudios', 'Formación'],
      skills: ['Competencias', 'Habilidades', 'Conocimientos'],
      languages: 'Idiomas',
      profile: ['Perfil', 'Sobre mí', 'Resumen'],
      personal: 'Datos personales',
      name: 'Nombre',
      address: 'Dirección',
      phone: 'Teléfono',
      email: 'Correo electrónico',
      positions: 'Puestos',
      references: 'Referencias a petición',
      summary: 'Resumen de competencias',
    },
    phone: (r) => `+34 6${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
    bullets: ['Gestión de un equipo de siete personas', 'Reducción de costes logísticos del 12 %', 'Implantación de un CRM', 'Negociación con proveedores internacionales'],
  },
  nl: {
    first: ['Sanne', 'Daan', 'Femke', 'Bram', 'Lotte', 'Joost', 'Eline', 'Ruben', 'Marloes', 'Thijs'],
    last: ['de Jong', 'Jansen', 'van der Berg', 'Bakker', 'Visser', 'Smit', 'Mulder', 'de Groot', 'Bos', 'Vos'],
    places: [
      { city: 'Utrecht', region: 'Nederland', street: 'Oudegracht 112', postcode: '3511 AX' },
      { city: 'Groningen', region: 'Nederland', street: 'Herestraat 40', postcode: '9711 LM' },
      { city: 'Gent', region: 'België', street: 'Veldstraat 17', postcode: '9000' },
      { city: 'Eindhoven', region: 'Nederland', street: 'Stratumseind 5', postcode: '5611 ET' },
      { city: 'Antwerpen', region: 'België', street: 'Meir 60', postcode: '2000' },
      { city: 'Haarlem', region: 'Nederland', street: 'Grote Houtstraat 9', postcode: '2011 SE' },
    ],
    companies: ['Van Dijk - Hermans Installatietechniek', 'Polderwerk Advies', 'Kanaalzicht Logistiek', 'De Vries & Zonen', 'Noord-Brabant Energie', 'Zeeuwse Verzekeringen', 'Tulp Digitaal', 'Havenbedrijf Oost', 'Groenveld Bouw', 'Molenaar ICT'],
    suffixes: ['B.V.', 'N.V.', 'V.O.F.', 'BV'],
    titles: ['Projectmanager', 'Software-ontwikkelaar', 'Financieel controller', 'Accountmanager', 'HR-adviseur', 'Teamleider klantenservice', 'Data-analist', 'Inkoper', 'Marketingspecialist', 'Netwerkbeheerder'],
    interns: ['Stagiair', 'Afstudeerstagiair', 'Stagiaire marketing'],
    degrees: ['MSc Bedrijfskunde', 'BSc Informatica', 'HBO Commerciële Economie', 'MSc Finance', 'BA Communicatie'],
    schools: ['Universiteit Utrecht', 'Rijksuniversiteit Groningen', 'Universiteit Gent', 'TU Eindhoven', 'Universiteit Antwerpen'],
    skills: ['Exact Online', 'C#', 'Scrum', 'Excel', 'AFAS', 'Python', 'Azure', 'Klantgericht werken', 'SQL', 'Power BI', 'Prince2', 'HubSpot'],
    spoken: ['Nederlands', 'Engels', 'Duits'],
    months: ['januari', 'februari', 'maart', 'april', 'mei', 'juni', 'juli', 'augustus', 'september', 'oktober', 'november', 'december'],
    present: 'heden',
    since: 'Sinds',
    to: 'tot',
    words: {
      cv: 'Curriculum vitae',
      experience: ['Werkervaring', 'Loopbaan', 'Arbeidsverleden', 'Professionele ervaring'],
      education: ['Opleiding', 'Opleidingen', 'Studie'],
      skills: ['Vaardigheden', 'Competenties', 'Kennis'],
      languages: 'Talen',
      profile: ['Profiel', 'Over mij', 'Samenvatting'],
      personal: 'Persoonlijke gegevens',
      name: 'Naam',
      address: 'Adres',
      phone: 'Telefoon',
      email: 'E-mail',
      positions: 'Functies',
      references: 'Referenties op aanvraag',
      summary: 'Kwalificaties',
    },
    phone: (r) => `+31 6 ${digits(r, 4)} ${digits(r, 4)}`,
    bullets: ['Invoering van een nieuw planningssysteem', 'Leiding aan een team van zes', 'Omzetgroei van 20 % in twee jaar', 'Opzet van een klantenpanel'],
  },
  it: {
    first: ['Giulia', 'Matteo', 'Francesca', 'Lorenzo', 'Chiara', 'Davide', 'Alessia', 'Stefano', 'Martina', 'Riccardo'],
    last: ['Bianchi', 'Romano', 'Colombo', 'Ferrari-Galli', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo', 'Conti'],
    places: [
      { city: 'Torino', region: 'Italia', street: 'Via Po 18', postcode: '10123' },
      { city: 'Bologna', region: 'Italia', street: 'Via dell’Indipendenza 33', postcode: '40121' },
      { city: 'Lugano', region: 'Svizzera', street: 'Via Nassa 7', postcode: '6900' },
      { city: 'Verona', region: 'Italia', street: 'Corso Porta Nuova 11', postcode: '37122' },
      { city: 'Bari', region: 'Italia', street: 'Via Sparano 90', postcode: '70121' },
      { city: 'Padova', region: 'Italia', street: 'Via Roma 52', postcode: '35122' },
    ],
    companies: ['Rossi - Esposito Impianti', 'Officine Meccaniche Piemonte', 'Logistica Adriatica', 'Banca Popolare del Lario', 'Tessitura Val Seriana', 'Studio Bellini & Partners', 'Informatica Emiliana', 'Alimentari Terre-Verdi', 'Cantieri Navali Liguri', 'Assicurazioni Dolomiti'],
    suffixes: ['S.p.A.', 'S.r.l.', 'S.n.c.', 'S.a.s.'],
    titles: ['Responsabile acquisti', 'Sviluppatrice software', 'Project manager', 'Analista finanziario', 'Addetta alle risorse umane', 'Ingegnere di processo', 'Direttore vendite', 'Contabile', 'Specialista marketing', 'Tecnico di laboratorio'],
    interns: ['Tirocinante', 'Stagista', 'Tirocinio curriculare'],
    degrees: ['Laurea magistrale in Ingegneria gestionale', 'Laurea in Economia', 'Master in Marketing', 'Laurea triennale in Informatica', 'Laurea in Giurisprudenza'],
    schools: ['Politecnico di Torino', 'Università di Bologna', 'Università della Svizzera italiana', 'Università di Verona', 'Università di Padova'],
    skills: ['SAP', 'Excel', 'Java', 'AutoCAD', 'Contabilità', 'SQL', 'Lean manufacturing', 'Python', 'Power BI', 'Negoziazione', 'Scrum', 'Photoshop'],
    spoken: ['Italiano', 'Inglese', 'Tedesco'],
    months: ['gennaio', 'febbraio', 'marzo', 'aprile', 'maggio', 'giugno', 'luglio', 'agosto', 'settembre', 'ottobre', 'novembre', 'dicembre'],
    present: 'oggi',
    since: 'Dal',
    to: 'a',
    words: {
      cv: 'Curriculum vitae',
      experience: ['Esperienze lavorative', 'Esperienza professionale', 'Percorso lavorativo', 'Impieghi'],
      education: ['Istruzione', 'Formazione', 'Titoli di studio'],
      skills: ['Competenze', 'Capacità', 'Competenze tecniche'],
      languages: 'Lingue',
      profile: ['Profilo', 'Chi sono', 'Sintesi'],
      personal: 'Informazioni personali',
      name: 'Nome',
      address: 'Indirizzo',
      phone: 'Telefono',
      email: 'E-mail',
      positions: 'Incarichi',
      references: 'Referenze su richiesta',
      summary: 'Sintesi delle competenze',
    },
    phone: (r) => `+39 3${digits(r, 2)} ${digits(r, 3)} ${digits(r, 4)}`,
    bullets: ['Gestione di un budget di 800.000 €', 'Coordinamento di un team di cinque persone', 'Riduzione degli scarti del 18 %', 'Avvio di un nuovo stabilimento'],
  },
  pt: {
    first: ['Beatriz', 'Tiago', 'Inês', 'Rafael', 'Mariana', 'Gonçalo', 'Catarina', 'Bruno', 'Leonor', 'Miguel'],
    last: ['Ferreira', 'Santos', 'Oliveira', 'Costa-Pereira', 'Rodrigues', 'Martins', 'Sousa', 'Almeida', 'Carvalho', 'Lopes'],
    places: [
      { city: 'Porto', region: 'Portugal', street: 'Rua de Santa Catarina 210', postcode: '4000-447' },
      { city: 'Coimbra', region: 'Portugal', street: 'Rua Ferreira Borges 45', postcode: '3000-180' },
      { city: 'Braga', region: 'Portugal', street: 'Avenida da Liberdade 300', postcode: '4710-251' },
      { city: 'Curitiba', region: 'Brasil', street: 'Rua XV de Novembro 700', postcode: '80020-310' },
      { city: 'Faro', region: 'Portugal', street: 'Rua de Santo António 12', postcode: '8000-283' },
      { city: 'Aveiro', region: 'Portugal', street: 'Rua Direita 33', postcode: '3810-075' },
    ],
    companies: ['Pinto - Moreira Engenharia', 'Transportes Douro Litoral', 'Conservas Atlântico', 'Soluções Informáticas Minho', 'Seguradora Tejo-Azul', 'Grupo Hoteleiro Algarve', 'Têxteis Vale do Ave', 'Farmácias Central', 'Construtora Beira-Mar', 'Consultoria Lusitana'],
    suffixes: ['Lda.', 'S.A.', 'Unipessoal Lda.'],
    titles: ['Gestora de projetos', 'Engenheiro de software', 'Técnico de contabilidade', 'Analista de dados', 'Responsável de compras', 'Diretora comercial', 'Consultor de recursos humanos', 'Especialista em marketing', 'Administrador de sistemas', 'Controller financeiro'],
    interns: ['Estagiário', 'Estágio curricular', 'Estagiária de marketing'],
    degrees: ['Licenciatura em Gestão', 'Mestrado em Engenharia Informática', 'Licenciatura em Economia', 'Mestrado em Marketing', 'MBA'],
    schools: ['Universidade do Porto', 'Universidade de Coimbra', 'Universidade do Minho', 'Universidade Federal do Paraná', 'Universidade do Algarve'],
    skills: ['Excel', 'SAP', 'Java', 'Primavera ERP', 'SQL', 'Python', 'Gestão de equipas', 'AutoCAD', 'Power BI', 'Scrum', 'Google Analytics', 'Negociação'],
    spoken: ['Português', 'Inglês', 'Espanhol'],
    months: ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro'],
    present: 'presente',
    since: 'Desde',
    to: 'a',
    words: {
      cv: 'Curriculum vitae',
      experience: ['Experiência profissional', 'Percurso profissional', 'Histórico profissional', 'Experiência'],
      education: ['Formação académica', 'Educação', 'Habilitações'],
      skills: ['Competências', 'Aptidões', 'Conhecimentos'],
      languages: 'Idiomas',
      profile: ['Perfil', 'Sobre mim', 'Resumo'],
      personal: 'Dados pessoais',
      name: 'Nome',
      address: 'Morada',
      phone: 'Telemóvel',
      email: 'E-mail',
      positions: 'Cargos',
      references: 'Referências disponíveis',
      summary: 'Resumo de competências',
    },
    phone: (r) => `+351 9${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
    bullets: ['Gestão de uma equipa de seis pessoas', 'Redução de custos de 10 %', 'Implementação de um novo ERP', 'Abertura de dois mercados'],
  },
};
