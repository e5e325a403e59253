/** Words of each corpus language: headings, months, present words, names, jobs, companies, places. */
import type { Lang } from './model.js';

export interface Vocab {
  headings: {
    profile: string[];
    experience: string[];
    education: string[];
    skills: string[];
    languages: string[];
    contact: string[];
  };
  monthNames: string[];
  monthAbbr: string[];
  present: string[];
  /** "Seit {d}", "Depuis {d}": an open range written with a start only. */
  since: string;
  /** Range connector words besides dashes ("bis", "à", "a", "tot"). */
  to: string;
  /** "Title {at} Company". */
  at: string;
  phoneLabels: string[];
  locationLabels: string[];
  firstNames: string[];
  lastNames: string[];
  jobs: Array<{ title: string; skills: string[]; groups?: Record<string, string[]> }>;
  companies: string[];
  places: Array<{ city: string; written: string[] }>;
  degrees: string[];
  schools: string[];
  bullets: string[];
  profiles: string[];
  spoken: string[];
  breaks: string[];
  sideJobs: string[];
  /** Skill group labels in this language. */
  groupLabels: string[];
  spokenLabel: string;
  phones: string[];
}

export const VOCAB: Record<Lang, Vocab> = {
  en: {
    headings: {
      profile: ['Profile', 'Summary', 'About me'],
      experience: ['Experience', 'Work Experience', 'Professional Experience', 'Employment History'],
      education: ['Education', 'Education and Training'],
      skills: ['Skills', 'Technical Skills', 'Key Skills'],
      languages: ['Languages'],
      contact: ['Contact', 'Contact Details'],
    },
    monthNames: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
    monthAbbr: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
    present: ['Present', 'present', 'Current', 'Now'],
    since: 'Since',
    to: 'to',
    at: 'at',
    phoneLabels: ['Phone:', 'Mobile:', 'Tel:'],
    locationLabels: ['Location:', 'Address:'],
    firstNames: ['James', 'Emily', 'Oliver', 'Sophie', 'Daniel', 'Hannah', 'Michael', 'Grace', 'Thomas', 'Laura'],
    lastNames: ['Walker', 'Bennett', 'Harris', 'Clarke', 'Turner', 'Mitchell', 'Hughes', 'Foster', 'Reynolds', 'Palmer'],
    jobs: [
      { title: 'Senior Software Engineer', skills: ['TypeScript', 'Node.js', 'PostgreSQL', 'Docker', 'Kubernetes', 'AWS'] },
      { title: 'Data Analyst', skills: ['Python', 'SQL', 'Tableau', 'Excel', 'Pandas'] },
      { title: 'Project Manager', skills: ['Scrum', 'Jira', 'Stakeholder Management', 'MS Project', 'Budgeting'] },
      { title: 'Marketing Manager', skills: ['SEO', 'Google Analytics', 'HubSpot', 'Content Strategy', 'Copywriting'] },
      { title: 'Financial Accountant', skills: ['IFRS', 'SAP', 'Excel', 'Month-end Closing', 'Audit'] },
    ],
    companies: ['Northwind Ltd', 'Brightline Solutions', 'Harbour Analytics Inc.', 'Kestrel Systems', 'Oakridge Bank', 'Bluefield Labs', 'Crestview Group'],
    places: [
      { city: 'London', written: ['London, United Kingdom', 'London, UK'] },
      { city: 'Manchester', written: ['Manchester, UK', 'Manchester, England'] },
      { city: 'Austin', written: ['Austin, TX'] },
      { city: 'Dublin', written: ['Dublin, Ireland'] },
    ],
    degrees: ['BSc Computer Science', 'MSc Data Science', 'BA Business Administration', 'BSc Economics'],
    schools: ['University of Leeds', 'University of Bristol', 'King’s College London', 'Trinity College Dublin'],
    bullets: ['Led a team of five across two product lines', 'Cut reporting time by 40%', 'Introduced code reviews and automated testing', 'Managed budgets and supplier relations'],
    profiles: ['Results-driven professional who enjoys turning complex problems into simple solutions.', 'Team player with a track record of delivering projects on time.'],
    spoken: ['English (native)', 'French (B2)', 'Spanish (A2)', 'German (B1)'],
    breaks: ['Career break (travel)', 'Sabbatical', 'Parental leave'],
    sideJobs: ['Freelance Consultant', 'Volunteer Mentor'],
    groupLabels: ['Tools:', 'Methods:', 'Software:'],
    spokenLabel: 'Languages:',
    phones: ['+44 20 7946 0958', '+44 7700 900123', '(512) 555-0147', '+353 1 555 0199'],
  },
  de: {
    headings: {
      profile: ['Profil', 'Über mich', 'Kurzprofil'],
      experience: ['Berufserfahrung', 'Beruflicher Werdegang', 'Berufliche Erfahrung', 'Praxiserfahrung'],
      education: ['Ausbildung', 'Bildungsweg', 'Studium und Ausbildung'],
      skills: ['Kenntnisse', 'Fähigkeiten', 'IT-Kenntnisse', 'Kompetenzen'],
      languages: ['Sprachen', 'Sprachkenntnisse'],
      contact: ['Kontakt', 'Persönliche Daten'],
    },
    monthNames: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
    monthAbbr: ['Jan.', 'Feb.', 'März', 'Apr.', 'Mai', 'Juni', 'Juli', 'Aug.', 'Sept.', 'Okt.', 'Nov.', 'Dez.'],
    present: ['heute', 'Heute', 'dato', 'jetzt'],
    since: 'Seit',
    to: 'bis',
    at: 'bei',
    phoneLabels: ['Telefon:', 'Tel.:', 'Mobil:', 'Handy:'],
    locationLabels: ['Wohnort:', 'Adresse:'],
    firstNames: ['Lukas', 'Anna', 'Felix', 'Julia', 'Jonas', 'Lea', 'Maximilian', 'Katharina', 'Tobias', 'Sophie'],
    lastNames: ['Müller', 'Schneider', 'Fischer', 'Weber', 'Becker', 'Hoffmann', 'Schäfer', 'Koch', 'Richter', 'Wagner'],
    jobs: [
      { title: 'Softwareentwickler', skills: ['Java', 'Spring Boot', 'Kubernetes', 'PostgreSQL', 'Git'] },
      { title: 'Projektleiterin', skills: ['Scrum', 'Jira', 'MS Project', 'Risikomanagement', 'Budgetplanung'] },
      { title: 'Datenanalyst', skills: ['Python', 'SQL', 'Power BI', 'Excel', 'Statistik'] },
      { title: 'Steuerfachangestellte', skills: ['DATEV', 'SAP FI', 'Excel', 'Lohnbuchhaltung', 'Jahresabschluss'] },
      { title: 'Vertriebsleiter', skills: ['Salesforce', 'Key Account Management', 'Verhandlungsführung', 'CRM'] },
    ],
    companies: ['Siemens AG', 'Nordlicht Software GmbH', 'Bergmann & Söhne KG', 'Rheinwerk Consulting GmbH', 'Alpenblick Logistik GmbH', 'Datenwerk SE'],
    places: [
      { city: 'Berlin', written: ['Berlin, Deutschland', 'Berlin'] },
      { city: 'München', written: ['80331 München', 'München, Deutschland'] },
      { city: 'Hamburg', written: ['Hamburg, Deutschland', '20095 Hamburg'] },
      { city: 'Wien', written: ['Wien, Österreich'] },
    ],
    degrees: ['M.Sc. Informatik', 'B.A. Betriebswirtschaftslehre', 'Ausbildung zur Steuerfachangestellten', 'B.Sc. Wirtschaftsinformatik'],
    schools: ['TU München', 'Universität Hamburg', 'Humboldt-Universität zu Berlin', 'Universität Wien'],
    bullets: ['Leitung eines Teams von fünf Entwicklern', 'Einführung von Code-Reviews und automatisierten Tests', 'Verantwortung für ein Budget von 2 Mio. EUR', 'Betreuung von Großkunden'],
    profiles: ['Zielorientierte Fachkraft mit Freude an komplexen Aufgaben.', 'Teamfähig, belastbar und lösungsorientiert.'],
    spoken: ['Deutsch (Muttersprache)', 'Englisch (C1)', 'Französisch (B1)', 'Spanisch (A2)'],
    breaks: ['Elternzeit', 'Berufliche Auszeit (Weltreise)', 'Sabbatical'],
    sideJobs: ['Freiberuflicher Berater', 'Nebenberuflicher Dozent'],
    groupLabels: ['Tools:', 'Methoden:', 'Software:', 'Programmiersprachen:'],
    spokenLabel: 'Sprachen:',
    phones: ['+49 30 12345678', '0171 2345678', '+49 (0)89 1234 567', '+43 1 234 5678'],
  },
  fr: {
    headings: {
      profile: ['Profil', 'À propos', 'Résumé'],
      experience: ['Expérience professionnelle', 'Expériences professionnelles', 'Parcours professionnel', 'Expérience'],
      education: ['Formation', 'Études et diplômes', 'Diplômes'],
      skills: ['Compétences', 'Compétences techniques', 'Savoir-faire'],
      languages: ['Langues'],
      contact: ['Contact', 'Coordonnées'],
    },
    monthNames: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
    monthAbbr: ['janv.', 'févr.', 'mars', 'avr.', 'mai', 'juin', 'juil.', 'août', 'sept.', 'oct.', 'nov.', 'déc.'],
    present: ["aujourd'hui", 'à ce jour', 'présent', 'En cours'],
    since: 'Depuis',
    to: 'à',
    at: 'chez',
    phoneLabels: ['Tél. :', 'Téléphone :', 'Mobile :'],
    locationLabels: ['Adresse :', 'Domicile :'],
    firstNames: ['Marie', 'Julien', 'Camille', 'Antoine', 'Claire', 'Nicolas', 'Élodie', 'Mathieu', 'Sophie', 'Thomas'],
    lastNames: ['Dupont', 'Martin', 'Lefebvre', 'Moreau', 'Girard', 'Rousseau', 'Fontaine', 'Chevalier', 'Lambert', 'Bonnet'],
    jobs: [
      { title: 'Ingénieure logiciel', skills: ['Java', 'Angular', 'Docker', 'PostgreSQL', 'Git'] },
      { title: 'Chef de projet', skills: ['Gestion de projet', 'Scrum', 'Jira', 'MS Project', 'Conduite du changement'] },
      { title: 'Comptable', skills: ['SAP', 'Sage', 'Excel', 'Fiscalité', 'Consolidation'] },
      { title: 'Développeur web', skills: ['JavaScript', 'React', 'PHP', 'MySQL', 'HTML', 'CSS'] },
      { title: 'Responsable marketing', skills: ['SEO', 'Google Analytics', 'Marketing digital', 'Canva', 'Réseaux sociaux'] },
    ],
    companies: ['Capgemini', 'Société Générale', 'Atelier Numérique SARL', 'Groupe Lumière SA', 'Orange Business', 'Vertiflex SAS'],
    places: [
      { city: 'Paris', written: ['75011 Paris', 'Paris, France'] },
      { city: 'Lyon', written: ['Lyon, France', '69003 Lyon'] },
      { city: 'Bordeaux', written: ['Bordeaux, France'] },
      { city: 'Lille', written: ['Lille, France'] },
    ],
    degrees: ['Master Informatique', "Diplôme d'ingénieur", 'Licence Gestion', 'DUT Informatique'],
    schools: ['Université Paris-Saclay', 'INSA Lyon', 'Université de Bordeaux', 'IUT de Lille'],
    bullets: ["Encadrement d'une équipe de cinq personnes", 'Mise en place de tests automatisés', 'Réduction des délais de clôture de 30 %', 'Suivi des fournisseurs et des budgets'],
    profiles: ['Professionnelle rigoureuse et curieuse, orientée résultats.', "Esprit d'équipe et sens de l'organisation."],
    spoken: ['Français (langue maternelle)', 'Anglais (courant)', 'Espagnol (intermédiaire)', 'Allemand (notions)'],
    breaks: ['Année sabbatique', 'Congé parental'],
    sideJobs: ['Consultant indépendant', 'Formateur vacataire'],
    groupLabels: ['Outils :', 'Méthodes :', 'Logiciels :'],
    spokenLabel: 'Langues :',
    phones: ['+33 6 12 34 56 78', '06 12 34 56 78', '+33 1 42 68 53 00', '07 81 23 45 67'],
  },
  es: {
    headings: {
      profile: ['Perfil', 'Sobre mí', 'Perfil profesional'],
      experience: ['Experiencia laboral', 'Experiencia profesional', 'Experiencia', 'Trayectoria profesional'],
      education: ['Formación', 'Formación académica', 'Educación'],
      skills: ['Habilidades', 'Competencias', 'Conocimientos'],
      languages: ['Idiomas'],
      contact: ['Contacto', 'Datos personales'],
    },
    monthNames: ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'],
    monthAbbr: ['ene.', 'feb.', 'mar.', 'abr.', 'may.', 'jun.', 'jul.', 'ago.', 'sept.', 'oct.', 'nov.', 'dic.'],
    present: ['actualidad', 'presente', 'Actualmente', 'hoy'],
    since: 'Desde',
    to: 'a',
    at: 'en',
    phoneLabels: ['Teléfono:', 'Tel.:', 'Móvil:'],
    locationLabels: ['Dirección:', 'Ubicación:'],
    firstNames: ['Lucía', 'Javier', 'Carmen', 'Alejandro', 'Elena', 'Pablo', 'Marta', 'Sergio', 'Laura', 'Diego'],
    lastNames: ['García López', 'Martínez', 'Sánchez Ruiz', 'Fernández', 'Gómez', 'Romero Díaz', 'Navarro', 'Torres', 'Ramírez', 'Castillo'],
    jobs: [
      { title: 'Desarrollador backend', skills: ['Python', 'Django', 'PostgreSQL', 'Docker', 'AWS'] },
      { title: 'Ingeniera de datos', skills: ['Apache Spark', 'Python', 'SQL', 'Airflow', 'Kafka'] },
      { title: 'Jefe de proyecto', skills: ['Gestión de proyectos', 'Scrum', 'Jira', 'Presupuestos'] },
      { title: 'Contable', skills: ['SAP', 'Contaplus', 'Excel', 'Fiscalidad'] },
      { title: 'Diseñadora gráfica', skills: ['Photoshop', 'Illustrator', 'Figma', 'InDesign'] },
    ],
    companies: ['Telefónica', 'Indra Sistemas S.A.', 'Soluciones Digitales S.L.', 'Banco Sabadell', 'Grupo Mediterráneo S.A.', 'Nubentia S.L.'],
    places: [
      { city: 'Madrid', written: ['Madrid, España', '28001 Madrid'] },
      { city: 'Barcelona', written: ['Barcelona, España', '08001 Barcelona'] },
      { city: 'Valencia', written: ['Valencia, España'] },
      { city: 'Sevilla', written: ['Sevilla'] },
    ],
    degrees: ['Grado en Ingeniería Informática', 'Máster en Ciencia de Datos', 'Grado en Administración de Empresas', 'Grado en Diseño'],
    schools: ['Universidad Politécnica de Madrid', 'Universitat de Barcelona', 'Universidad de Sevilla', 'Universitat de València'],
    bullets: ['Dirección de un equipo de cinco personas', 'Implantación de pruebas automatizadas', 'Reducción de costes del 20 %', 'Atención a clientes clave'],
    profiles: ['Profesional proactiva con orientación a resultados.', 'Capacidad de trabajo en equipo y de organización.'],
    spoken: ['Español (nativo)', 'Inglés (C1)', 'Francés (B1)', 'Catalán (nativo)'],
    breaks: ['Excedencia por cuidado de hijos', 'Año sabático'],
    sideJobs: ['Consultor autónomo', 'Profesor asociado'],
    groupLabels: ['Herramientas:', 'Metodologías:', 'Software:'],
    spokenLabel: 'Idiomas:',
    phones: ['+34 612 345 678', '612 34 56 78', '+34 91 123 45 67', '+34 699 112 233'],
  },
  nl: {
    headings: {
      profile: ['Profiel', 'Over mij', 'Persoonlijk profiel'],
      experience: ['Werkervaring', 'Professionele ervaring', 'Loopbaan', 'Ervaring'],
      education: ['Opleiding', 'Opleidingen'],
      skills: ['Vaardigheden', 'Competenties', 'Kennis en vaardigheden'],
      languages: ['Talen', 'Talenkennis'],
      contact: ['Contact', 'Contactgegevens', 'Personalia'],
    },
    monthNames: ['januari', 'februari', 'maart', 'april', 'mei', 'juni', 'juli', 'augustus', 'september', 'oktober', 'november', 'december'],
    monthAbbr: ['jan.', 'feb.', 'mrt.', 'apr.', 'mei', 'jun.', 'jul.', 'aug.', 'sep.', 'okt.', 'nov.', 'dec.'],
    present: ['heden', 'nu', 'Heden', 'huidig'],
    since: 'Sinds',
    to: 'tot',
    at: 'bij',
    phoneLabels: ['Telefoon:', 'Tel:', 'Mobiel:'],
    locationLabels: ['Woonplaats:', 'Adres:'],
    firstNames: ['Daan', 'Sanne', 'Bram', 'Lotte', 'Jeroen', 'Eva', 'Thijs', 'Femke', 'Ruben', 'Anouk'],
    lastNames: ['de Vries', 'Jansen', 'van den Berg', 'Bakker', 'Visser', 'Smit', 'de Jong', 'Mulder', 'van Dijk', 'Meijer'],
    jobs: [
      { title: 'Softwareontwikkelaar', skills: ['C#', '.NET', 'Azure', 'SQL Server', 'Git'] },
      { title: 'Projectleider', skills: ['Prince2', 'Scrum', 'Jira', 'Stakeholdermanagement'] },
      { title: 'Financieel medewerker', skills: ['Exact Online', 'Excel', 'AFAS', 'Boekhouding'] },
      { title: 'Data-analist', skills: ['Python', 'SQL', 'Power BI', 'Excel'] },
      { title: 'Verpleegkundige', skills: ['Wondzorg', 'Medicatiebeheer', 'ECD', 'Triage'] },
    ],
    companies: ['Philips', 'Rabobank', 'Polderdata B.V.', 'Zuidas Consultancy B.V.', 'Noordzee Logistiek B.V.', 'Tulp Software'],
    places: [
      { city: 'Amsterdam', written: ['Amsterdam, Nederland', '1012 AB Amsterdam'] },
      { city: 'Utrecht', written: ['Utrecht', 'Utrecht, Nederland'] },
      { city: 'Rotterdam', written: ['Rotterdam, Nederland'] },
      { city: 'Gent', written: ['Gent, België'] },
    ],
    degrees: ['Master Informatica', 'Bachelor Bedrijfskunde', 'HBO Verpleegkunde', 'MBO Financiële administratie'],
    schools: ['Universiteit van Amsterdam', 'Hogeschool Utrecht', 'Erasmus Universiteit Rotterdam', 'Universiteit Gent'],
    bullets: ['Aansturen van een team van vijf collega’s', 'Invoeren van geautomatiseerde tests', 'Verkorten van de maandafsluiting met 30%', 'Contact met leveranciers en klanten'],
    profiles: ['Resultaatgerichte professional met oog voor detail.', 'Teamspeler met een flexibele instelling.'],
    spoken: ['Nederlands (moedertaal)', 'Engels (vloeiend)', 'Duits (goed)', 'Frans (basis)'],
    breaks: ['Ouderschapsverlof', 'Sabbatical (wereldreis)'],
    sideJobs: ['Freelance adviseur', 'Gastdocent'],
    groupLabels: ['Tools:', 'Methoden:', 'Software:'],
    spokenLabel: 'Talen:',
    phones: ['+31 6 12345678', '06-12345678', '+31 20 123 4567', '+32 9 123 45 67'],
  },
  it: {
    headings: {
      profile: ['Profilo', 'Profilo personale', 'Chi sono'],
      experience: ['Esperienza professionale', 'Esperienze lavorative', 'Esperienza lavorativa', 'Esperienze'],
      education: ['Istruzione', 'Formazione', 'Istruzione e formazione'],
      skills: ['Competenze', 'Competenze tecniche', 'Capacità'],
      languages: ['Lingue', 'Conoscenze linguistiche'],
      contact: ['Contatti', 'Dati personali'],
    },
    monthNames: ['gennaio', 'febbraio', 'marzo', 'aprile', 'maggio', 'giugno', 'luglio', 'agosto', 'settembre', 'ottobre', 'novembre', 'dicembre'],
    monthAbbr: ['gen', 'feb', 'mar', 'apr', 'mag', 'giu', 'lug', 'ago', 'set', 'ott', 'nov', 'dic'],
    present: ['oggi', 'presente', 'in corso', 'attuale'],
    since: 'Dal',
    to: 'al',
    at: 'presso',
    phoneLabels: ['Telefono:', 'Tel.:', 'Cellulare:'],
    locationLabels: ['Indirizzo:', 'Residenza:'],
    firstNames: ['Giulia', 'Marco', 'Francesca', 'Luca', 'Chiara', 'Alessandro', 'Sara', 'Matteo', 'Valentina', 'Davide'],
    lastNames: ['Rossi', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo', 'Conti'],
    jobs: [
      { title: 'Sviluppatore software', skills: ['Java', 'Spring Boot', 'Oracle', 'Docker', 'Git'] },
      { title: 'Project manager', skills: ['Scrum', 'Jira', 'Gestione del rischio', 'MS Project'] },
      { title: 'Contabile', skills: ['SAP', 'Excel', 'Bilancio', 'Contabilità generale'] },
      { title: 'Ingegnere meccanico', skills: ['SolidWorks', 'AutoCAD', 'MATLAB', 'Lean Manufacturing'] },
      { title: 'Analista dati', skills: ['Python', 'SQL', 'Tableau', 'R'] },
    ],
    companies: ['Fincantieri S.p.A.', 'Accenture Italia', 'Soluzioni Informatiche S.r.l.', 'Banca Intesa', 'Meccanica Lombarda S.r.l.', 'Digitalia S.p.A.'],
    places: [
      { city: 'Milano', written: ['Milano, Italia', '20121 Milano'] },
      { city: 'Roma', written: ['Roma, Italia'] },
      { city: 'Torino', written: ['Torino, Italia', 'Torino (TO)'] },
      { city: 'Bologna', written: ['Bologna'] },
    ],
    degrees: ['Laurea magistrale in Ingegneria Informatica', 'Laurea in Economia', 'Laurea in Ingegneria Meccanica', 'Diploma di ragioneria'],
    schools: ['Politecnico di Milano', 'Università di Bologna', 'Sapienza Università di Roma', 'Politecnico di Torino'],
    bullets: ['Coordinamento di un team di cinque persone', 'Introduzione di test automatici', 'Riduzione dei costi del 15%', 'Gestione dei rapporti con i fornitori'],
    profiles: ['Professionista dinamica e orientata agli obiettivi.', 'Ottime capacità organizzative e di lavoro in team.'],
    spoken: ['Italiano (madrelingua)', 'Inglese (C1)', 'Francese (B2)', 'Tedesco (A2)'],
    breaks: ['Congedo parentale', 'Anno sabbatico'],
    sideJobs: ['Consulente freelance', 'Docente a contratto'],
    groupLabels: ['Strumenti:', 'Metodologie:', 'Software:'],
    spokenLabel: 'Lingue:',
    phones: ['+39 347 123 4567', '+39 02 1234 5678', '333 123 4567', '+39 06 9876 5432'],
  },
  pt: {
    headings: {
      profile: ['Perfil', 'Sobre mim', 'Resumo profissional'],
      experience: ['Experiência profissional', 'Experiência', 'Percurso profissional', 'Experiência de trabalho'],
      education: ['Formação académica', 'Formação', 'Educação'],
      skills: ['Competências', 'Competências técnicas', 'Habilidades'],
      languages: ['Idiomas', 'Línguas'],
      contact: ['Contacto', 'Contactos', 'Dados pessoais'],
    },
    monthNames: ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro'],
    monthAbbr: ['jan.', 'fev.', 'mar.', 'abr.', 'mai.', 'jun.', 'jul.', 'ago.', 'set.', 'out.', 'nov.', 'dez.'],
    present: ['atual', 'presente', 'o momento', 'hoje'],
    since: 'Desde',
    to: 'a',
    at: 'na',
    phoneLabels: ['Telefone:', 'Telemóvel:', 'Tel.:'],
    locationLabels: ['Morada:', 'Localização:'],
    firstNames: ['Inês', 'João', 'Beatriz', 'Miguel', 'Mariana', 'Tiago', 'Ana', 'Rafael', 'Catarina', 'Pedro'],
    lastNames: ['Silva', 'Santos', 'Ferreira', 'Pereira', 'Oliveira', 'Costa', 'Rodrigues', 'Martins', 'Sousa', 'Almeida'],
    jobs: [
      { title: 'Engenheiro de software', skills: ['Java', 'Kotlin', 'PostgreSQL', 'Docker', 'Git'] },
      { title: 'Gestora de projetos', skills: ['Scrum', 'Jira', 'Gestão de riscos', 'MS Project'] },
      { title: 'Técnico de contabilidade', skills: ['Primavera', 'SAP', 'Excel', 'Fiscalidade'] },
      { title: 'Analista de dados', skills: ['Python', 'SQL', 'Power BI', 'Excel'] },
      { title: 'Designer gráfico', skills: ['Photoshop', 'Illustrator', 'Figma', 'InDesign'] },
    ],
    companies: ['Farfetch', 'Sonae', 'Soluções Digitais Lda.', 'Banco Atlântico S.A.', 'Tejo Consultoria Lda.', 'Altice Portugal'],
    places: [
      { city: 'Lisboa', written: ['Lisboa, Portugal', '1000-001 Lisboa'] },
      { city: 'Porto', written: ['Porto, Portugal'] },
      { city: 'São Paulo', written: ['São Paulo, Brasil', 'São Paulo - SP'] },
      { city: 'Braga', written: ['Braga'] },
    ],
    degrees: ['Mestrado em Engenharia Informática', 'Licenciatura em Gestão', 'Licenciatura em Design', 'Curso de Contabilidade'],
    schools: ['Universidade de Lisboa', 'Universidade do Porto', 'Universidade do Minho', 'Universidade de São Paulo'],
    bullets: ['Coordenação de uma equipa de cinco pessoas', 'Implementação de testes automatizados', 'Redução de custos em 20%', 'Gestão de fornecedores e orçamentos'],
    profiles: ['Profissional dinâmica e orientada para resultados.', 'Boa capacidade de comunicação e trabalho em equipa.'],
    spoken: ['Português (nativo)', 'Inglês (fluente)', 'Espanhol (intermédio)', 'Francês (básico)'],
    breaks: ['Licença parental', 'Ano sabático'],
    sideJobs: ['Consultor freelancer', 'Formador'],
    groupLabels: ['Ferramentas:', 'Metodologias:', 'Software:'],
    spokenLabel: 'Idiomas:',
    phones: ['+351 912 345 678', '+351 21 123 4567', '+55 11 91234-5678', '912 345 678'],
  },
};
