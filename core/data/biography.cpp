#include "data/biography.h"

#include <array>
#include <cmath>
#include <unordered_set>

#include "data/detail.h"
#include "data/random.h"
#include "util/error.h"
#include "util/files.h"

namespace gb::data {

namespace {

// ---- Attribute pools (written for GrowBench; ASCII only, entries unique per pool) ----

const char* const kFirstNames[] = {
    "James",     "Mary",     "John",      "Patricia", "Robert",    "Jennifer", "Michael",
    "Linda",     "William",  "Elizabeth", "David",    "Barbara",   "Richard",  "Susan",
    "Joseph",    "Jessica",  "Thomas",    "Sarah",    "Charles",   "Karen",    "Daniel",
    "Nancy",     "Matthew",  "Lisa",      "Anthony",  "Betty",     "Mark",     "Margaret",
    "Donald",    "Sandra",   "Steven",    "Ashley",   "Paul",      "Kimberly", "Andrew",
    "Emily",     "Joshua",   "Donna",     "Kenneth",  "Michelle",  "Kevin",    "Carol",
    "Brian",     "Amanda",   "George",    "Melissa",  "Edward",    "Deborah",  "Ronald",
    "Stephanie", "Timothy",  "Rebecca",   "Jason",    "Laura",     "Jeffrey",  "Sharon",
    "Ryan",      "Cynthia",  "Jacob",     "Kathleen", "Gary",      "Amy",      "Nicholas",
    "Shirley",   "Eric",     "Angela",    "Jonathan", "Helen",     "Stephen",  "Anna",
    "Larry",     "Brenda",   "Justin",    "Pamela",   "Scott",     "Nicole",   "Brandon",
    "Samantha",  "Benjamin", "Katherine", "Samuel",   "Christine", "Gregory",  "Emma",
    "Alexander", "Ruth",     "Patrick",   "Julie",    "Frank",     "Olivia",   "Raymond",
    "Victoria",  "Jack",     "Rachel",    "Dennis",   "Maria",     "Jerry",    "Sophia",
    "Tyler",     "Hannah",   "Aaron",     "Grace",    "Henry",     "Chloe",    "Adam",
    "Alice",     "Peter",    "Clara",     "Nathan",   "Ingrid",    "Lukas",    "Freya",
    "Mateo",     "Elena",    "Hiroshi",   "Yuki",     "Rahul",     "Priya",    "Omar",
    "Leila",     "Kwame",    "Amara",     "Sven",     "Astrid",    "Pablo",    "Lucia",
    "Dmitri",    "Natasha",  "Felix",     "Nora",     "Oscar",     "Ivy",
};

const char* const kMiddleNames[] = {
    "Lee",       "Marie",    "Ann",     "Lynn",     "Rose",     "Jane",     "Ray",      "Dean",
    "Wade",      "Grant",    "Blake",   "Cole",     "Reid",     "Jude",     "Quinn",    "Sage",
    "Faye",      "June",     "Pearl",   "Hope",     "Joy",      "Belle",    "Claire",   "Eve",
    "Mae",       "Jean",     "Louise",  "Beth",     "Kate",     "Wren",     "Allen",    "Arthur",
    "Bennett",   "Calvin",   "Dale",    "Eugene",   "Francis",  "Gordon",   "Harold",   "Irving",
    "Jerome",    "Keith",    "Leon",    "Milton",   "Neil",     "Owen",     "Preston",  "Roy",
    "Spencer",   "Trent",    "Vernon",  "Wallace",  "Xavier",   "Yale",     "Zane",     "Abigail",
    "Beatrice",  "Cecilia",  "Daphne",  "Edith",    "Fiona",    "Gwen",     "Harriet",  "Iris",
    "Josephine", "Lorraine", "Mabel",   "Nadine",   "Opal",     "Penelope", "Rosalind", "Sylvia",
    "Theresa",   "Ursula",   "Vivian",  "Winifred", "Adele",    "Bernard",  "Conrad",   "Desmond",
    "Elliot",    "Floyd",    "Gilbert", "Horace",   "Ignatius", "Jasper",   "Lionel",   "Marcus",
    "Norman",    "Otto",     "Percy",   "Rupert",   "Silas",    "Tobias",   "Ulric",    "Victor",
    "Warren",    "August",   "Basil",   "Cyril",
};

const char* const kLastNames[] = {
    "Smith",      "Johnson",   "Williams",   "Brown",     "Jones",     "Garcia",    "Miller",
    "Davis",      "Rodriguez", "Martinez",   "Hernandez", "Lopez",     "Gonzalez",  "Wilson",
    "Anderson",   "Thomas",    "Taylor",     "Moore",     "Jackson",   "Martin",    "Thompson",
    "White",      "Harris",    "Sanchez",    "Clark",     "Ramirez",   "Lewis",     "Robinson",
    "Walker",     "Young",     "Allen",      "King",      "Wright",    "Scott",     "Torres",
    "Nguyen",     "Hill",      "Flores",     "Green",     "Adams",     "Nelson",    "Baker",
    "Hall",       "Rivera",    "Campbell",   "Mitchell",  "Carter",    "Roberts",   "Gomez",
    "Phillips",   "Evans",     "Turner",     "Diaz",      "Parker",    "Cruz",      "Edwards",
    "Collins",    "Reyes",     "Stewart",    "Morris",    "Morales",   "Murphy",    "Cook",
    "Rogers",     "Gutierrez", "Ortiz",      "Morgan",    "Cooper",    "Peterson",  "Bailey",
    "Reed",       "Kelly",     "Howard",     "Ramos",     "Kim",       "Cox",       "Ward",
    "Richardson", "Watson",    "Brooks",     "Chavez",    "Wood",      "James",     "Bennett",
    "Gray",       "Mendoza",   "Ruiz",       "Hughes",    "Price",     "Alvarez",   "Castillo",
    "Sanders",    "Patel",     "Myers",      "Long",      "Ross",      "Foster",    "Jimenez",
    "Powell",     "Jenkins",   "Perry",      "Russell",   "Sullivan",  "Bell",      "Coleman",
    "Butler",     "Henderson", "Barnes",     "Gonzales",  "Fisher",    "Vasquez",   "Simmons",
    "Romero",     "Jordan",    "Patterson",  "Alexander", "Hamilton",  "Graham",    "Reynolds",
    "Griffin",    "Wallace",   "Moreno",     "West",      "Cole",      "Hayes",     "Bryant",
    "Herrera",    "Gibson",    "Ellis",      "Tran",      "Medina",    "Aguilar",   "Stevens",
    "Murray",     "Ford",      "Castro",     "Marshall",  "Owens",     "Harrison",  "Fernandez",
    "Mcdonald",   "Woods",     "Washington", "Kennedy",   "Wells",     "Vargas",    "Henry",
    "Chen",       "Freeman",   "Webb",       "Tucker",    "Guzman",    "Burns",     "Crawford",
    "Olson",      "Simpson",   "Porter",     "Hunter",    "Gordon",    "Mendez",    "Silva",
    "Shaw",       "Snyder",    "Mason",      "Dixon",     "Munoz",     "Hunt",      "Hicks",
    "Holmes",     "Palmer",    "Wagner",     "Black",     "Robertson", "Boyd",      "Rose",
    "Stone",      "Salazar",   "Fox",        "Warren",    "Mills",     "Meyer",     "Rice",
    "Schmidt",    "Garza",     "Daniels",    "Ferguson",  "Nichols",   "Stephens",  "Soto",
    "Weaver",     "Ryan",      "Gardner",    "Payne",     "Grant",     "Dunn",      "Kowalski",
    "Novak",      "Lindqvist", "Okafor",     "Tanaka",    "Yamamoto",  "Kaur",      "Haddad",
    "Mensah",     "Larsen",    "Dubois",     "Rossi",     "Moretti",   "Schneider", "Fischer",
    "Weber",      "Becker",    "Hoffmann",   "Jansen",    "Virtanen",  "Nowak",     "Petrov",
    "Ivanova",
};

const char* const kCities[] = {
    "Amsterdam",    "Athens",        "Atlanta",      "Auckland",   "Austin",       "Baltimore",
    "Bangkok",      "Barcelona",     "Beijing",      "Belfast",    "Berlin",       "Bogota",
    "Boston",       "Brisbane",      "Brussels",     "Budapest",   "Buenos Aires", "Cairo",
    "Calgary",      "Cape Town",     "Chicago",      "Copenhagen", "Dallas",       "Delhi",
    "Denver",       "Detroit",       "Dhaka",        "Dublin",     "Edinburgh",    "Florence",
    "Frankfurt",    "Geneva",        "Glasgow",      "Hamburg",    "Hanoi",        "Havana",
    "Helsinki",     "Hong Kong",     "Honolulu",     "Houston",    "Istanbul",     "Jakarta",
    "Johannesburg", "Kyoto",         "Lagos",        "Lima",       "Lisbon",       "Liverpool",
    "London",       "Los Angeles",   "Lyon",         "Madrid",     "Manchester",   "Manila",
    "Marseille",    "Melbourne",     "Mexico City",  "Miami",      "Milan",        "Minneapolis",
    "Montreal",     "Moscow",        "Mumbai",       "Munich",     "Nairobi",      "Naples",
    "Nashville",    "New Orleans",   "New York",     "Oslo",       "Osaka",        "Ottawa",
    "Paris",        "Perth",         "Philadelphia", "Phoenix",    "Pittsburgh",   "Portland",
    "Porto",        "Prague",        "Quebec City",  "Reykjavik",  "Rome",         "Rotterdam",
    "San Diego",    "San Francisco", "Santiago",     "Seattle",    "Seoul",        "Shanghai",
    "Singapore",    "Stockholm",     "Sydney",       "Taipei",     "Tokyo",        "Toronto",
    "Valencia",     "Vancouver",     "Venice",       "Vienna",     "Warsaw",       "Zurich",
};

const char* const kUniversities[] = {
    "Harvard University",
    "Stanford University",
    "Massachusetts Institute of Technology",
    "Yale University",
    "Princeton University",
    "Columbia University",
    "University of Chicago",
    "University of Pennsylvania",
    "Cornell University",
    "Brown University",
    "Dartmouth College",
    "Duke University",
    "Northwestern University",
    "Johns Hopkins University",
    "Rice University",
    "Vanderbilt University",
    "Emory University",
    "Georgetown University",
    "Carnegie Mellon University",
    "New York University",
    "Boston University",
    "Tufts University",
    "University of Michigan",
    "University of Virginia",
    "University of Washington",
    "University of Texas at Austin",
    "University of Wisconsin-Madison",
    "University of Illinois Urbana-Champaign",
    "University of California, Berkeley",
    "University of California, Los Angeles",
    "University of Southern California",
    "Georgia Institute of Technology",
    "Purdue University",
    "Ohio State University",
    "Pennsylvania State University",
    "University of Minnesota",
    "University of North Carolina at Chapel Hill",
    "University of Florida",
    "Rutgers University",
    "Indiana University",
    "University of Oxford",
    "University of Cambridge",
    "Imperial College London",
    "University College London",
    "London School of Economics",
    "University of Edinburgh",
    "University of Manchester",
    "King's College London",
    "ETH Zurich",
    "Sorbonne University",
    "Heidelberg University",
    "Technical University of Munich",
    "Humboldt University of Berlin",
    "KU Leuven",
    "Leiden University",
    "University of Amsterdam",
    "Delft University of Technology",
    "University of Copenhagen",
    "Uppsala University",
    "University of Helsinki",
    "University of Oslo",
    "University of Vienna",
    "Charles University",
    "University of Bologna",
    "University of Barcelona",
    "University of Toronto",
    "McGill University",
    "University of British Columbia",
    "University of Tokyo",
    "Kyoto University",
    "Seoul National University",
    "Peking University",
    "Tsinghua University",
    "National University of Singapore",
    "University of Melbourne",
    "Australian National University",
    "University of Sydney",
    "University of Cape Town",
    "Indian Institute of Science",
};

const char* const kMajors[] = {
    "Computer Science",
    "Mathematics",
    "Physics",
    "Chemistry",
    "Biology",
    "Economics",
    "History",
    "Philosophy",
    "Psychology",
    "Sociology",
    "Political Science",
    "Linguistics",
    "English Literature",
    "Comparative Literature",
    "Art History",
    "Music",
    "Architecture",
    "Civil Engineering",
    "Mechanical Engineering",
    "Electrical Engineering",
    "Chemical Engineering",
    "Aerospace Engineering",
    "Biomedical Engineering",
    "Materials Science",
    "Environmental Science",
    "Geology",
    "Astronomy",
    "Statistics",
    "Neuroscience",
    "Anthropology",
    "Archaeology",
    "Classics",
    "Journalism",
    "Communications",
    "Business Administration",
    "Accounting",
    "Finance",
    "Marketing",
    "Nursing",
    "Public Health",
    "Pharmacology",
    "Nutrition",
    "Education",
    "Law",
    "International Relations",
    "Urban Planning",
    "Graphic Design",
    "Film Studies",
    "Theater",
    "Geography",
    "Oceanography",
    "Agricultural Science",
    "Information Systems",
    "Data Science",
    "Molecular Biology",
    "Genetics",
    "Biochemistry",
    "Ecology",
    "Religious Studies",
    "Industrial Engineering",
    "Nuclear Engineering",
    "Robotics",
};

// Fictional companies, each with the city of its headquarters (the company city).
struct Company {
  const char* name;
  const char* city;
};
const Company kCompanies[] = {
    {"Northwind Logistics", "Seattle"},
    {"Bluepeak Systems", "Denver"},
    {"Ironbridge Capital", "New York"},
    {"Silverline Pharmaceuticals", "Basel"},
    {"Redwood Analytics", "San Francisco"},
    {"Harborview Shipping", "Rotterdam"},
    {"Granite Peak Insurance", "Minneapolis"},
    {"Sunfield Energy", "Phoenix"},
    {"Clearwater Foods", "Chicago"},
    {"Brightforge Robotics", "Pittsburgh"},
    {"Evergreen Textiles", "Manchester"},
    {"Stonegate Construction", "Dallas"},
    {"Kestrel Aerospace", "Toulouse"},
    {"Lumen Optics", "Rochester"},
    {"Meridian Bank", "London"},
    {"Alder Software", "Austin"},
    {"Cobalt Mining", "Johannesburg"},
    {"Falcon Motors", "Stuttgart"},
    {"Juniper Health", "Boston"},
    {"Marigold Cosmetics", "Paris"},
    {"Obsidian Security", "Tel Aviv"},
    {"Pinecrest Paper", "Portland"},
    {"Quartz Semiconductors", "Taipei"},
    {"Riverstone Media", "Los Angeles"},
    {"Saffron Spice Traders", "Mumbai"},
    {"Tidewater Chemicals", "Houston"},
    {"Umbra Games", "Montreal"},
    {"Vantage Telecom", "Stockholm"},
    {"Willow Furniture", "Copenhagen"},
    {"Zephyr Airlines", "Dublin"},
    {"Amberline Rail", "Vienna"},
    {"Bramble Publishing", "Edinburgh"},
    {"Cedar Point Hotels", "Orlando"},
    {"Driftwood Outdoor", "Vancouver"},
    {"Emberlight Studios", "Atlanta"},
    {"Foxglove Biotech", "Cambridge"},
    {"Goldcrest Jewelers", "Antwerp"},
    {"Hawthorne Legal", "Philadelphia"},
    {"Indigo Fashion", "Milan"},
    {"Jadeport Trading", "Singapore"},
    {"Kingfisher Marine", "Oslo"},
    {"Lakeshore Dairy", "Madison"},
    {"Maplewood Toys", "Toronto"},
    {"Nimbus Cloud Services", "Bangalore"},
    {"Oakridge Nuclear", "Knoxville"},
    {"Palisade Architects", "Barcelona"},
    {"Quillfeather Stationery", "Kyoto"},
    {"Rosewater Perfumes", "Grasse"},
    {"Sandpiper Travel", "Lisbon"},
    {"Thornfield Steel", "Sheffield"},
    {"Upland Coffee", "Nairobi"},
    {"Vireo Electronics", "Seoul"},
    {"Windmill Power", "Hamburg"},
    {"Yarrow Organics", "Melbourne"},
    {"Zenith Watches", "Geneva"},
    {"Arcadia Water", "Sacramento"},
    {"Beacon Consulting", "Washington"},
    {"Copperleaf Brewing", "Prague"},
    {"Dunmore Distillers", "Glasgow"},
    {"Eastgate Retail", "Shanghai"},
    {"Fjordline Ferries", "Bergen"},
    {"Glacier Frozen Foods", "Reykjavik"},
    {"Highland Wool", "Inverness"},
    {"Islander Fisheries", "Halifax"},
    {"Keystone Cement", "Cleveland"},
    {"Larkspur Seeds", "Des Moines"},
    {"Monarch Chocolate", "Brussels"},
    {"Nightingale Medical", "Nashville"},
    {"Orchard Cider", "Hereford"},
    {"Pelican Freight", "New Orleans"},
    {"Raven Cybernetics", "Tokyo"},
    {"Summit Outdoor Gear", "Salt Lake City"},
    {"Tamarind Restaurants", "Bangkok"},
    {"Valiant Defense", "Arlington"},
    {"Westbrook Motors", "Detroit"},
    {"Aurora Solar", "Madrid"},
    {"Bayside Fintech", "Miami"},
    {"Crescent Tiles", "Istanbul"},
    {"Delta River Agriculture", "Memphis"},
    {"Elmstead Pharmacy", "Birmingham"},
};

const char* const kMonths[] = {"January",   "February", "March",    "April",
                               "May",       "June",     "July",     "August",
                               "September", "October",  "November", "December"};
constexpr int kFirstYear = 1900;
constexpr int kLastYear = 2009;

// ---- Templates ----
// A biography sentence is full name + middle + value + end (every template starts with the
// name); a question is before + full name + after.
struct SentenceTemplate {
  const char* middle;
  const char* end;
};
struct QuestionTemplate {
  const char* before;
  const char* after;
};
constexpr int kBioTemplates = 8;
constexpr int kQuestionTemplates = 4;

const SentenceTemplate kBio[kNumAttributes][kBioTemplates] = {
    {{" was born on ", "."},
     {" came into this world on ", "."},
     {"'s birthday is ", "."},
     {"'s date of birth is ", "."},
     {" first saw the light of day on ", "."},
     {" entered the world on ", "."},
     {" has a birth date of ", "."},
     {" was welcomed into the world on ", "."}},
    {{" was born in ", "."},
     {" spent the early years of life in ", "."},
     {"'s birthplace is ", "."},
     {" hails from ", "."},
     {" originally comes from ", "."},
     {"'s city of birth is ", "."},
     {" began life in ", "."},
     {" was brought into the world in ", "."}},
    {{" studied at ", "."},
     {" graduated from ", "."},
     {" received an education at ", "."},
     {" attended ", "."},
     {" completed a degree at ", "."},
     {" is a graduate of ", "."},
     {" spent the university years at ", "."},
     {" enrolled at ", "."}},
    {{" majored in ", "."},
     {" focused on ", " during college."},
     {" chose ", " as a field of study."},
     {" earned a degree in ", "."},
     {" specialized in ", "."},
     {" completed coursework in ", "."},
     {" pursued ", " as a major."},
     {"'s academic focus was ", "."}},
    {{" works for ", "."},
     {" is employed by ", "."},
     {" has a job at ", "."},
     {" holds a position at ", "."},
     {" joined the staff of ", "."},
     {" is on the payroll of ", "."},
     {" works as an employee of ", "."},
     {"'s employer is ", "."}},
    {{" works in ", "."},
     {"'s workplace is located in ", "."},
     {" commutes to an office in ", "."},
     {" is based in ", " for work."},
     {" has an office in ", "."},
     {" spends the working week in ", "."},
     {" is employed in ", "."},
     {" reports to work in ", "."}},
};

const QuestionTemplate kQuestions[kNumAttributes][kQuestionTemplates] = {
    {{"What is the birth date of ", "?"},
     {"When was ", " born?"},
     {"On what date was ", " born?"},
     {"What is the date of birth of ", "?"}},
    {{"What is the birth city of ", "?"},
     {"Where was ", " born?"},
     {"In which city was ", " born?"},
     {"Which city does ", " come from?"}},
    {{"Which university did ", " study at?"},
     {"Where did ", " go to university?"},
     {"What university did ", " attend?"},
     {"From which university did ", " graduate?"}},
    {{"What did ", " major in?"},
     {"What was the major of ", "?"},
     {"Which field did ", " study?"},
     {"What is the field of study of ", "?"}},
    {{"Which company does ", " work for?"},
     {"Who employs ", "?"},
     {"What company employs ", "?"},
     {"What is the employer of ", "?"}},
    {{"Which city does ", " work in?"},
     {"In which city does ", " work?"},
     {"Where is the workplace of ", "?"},
     {"What city is the office of ", " in?"}},
};

template <typename T, size_t N>
constexpr size_t count_of(const T (&)[N]) {
  return N;
}

// Sub-streams of the seed, one per purpose.
constexpr uint64_t kPeopleStream = 1;
constexpr uint64_t kBioStream = 2;
constexpr uint64_t kQaStream = 3;

int days_in_month(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

void check_fraction(double f, const char* name) {
  if (!std::isfinite(f) || f < 0.0 || f > 1.0) {
    fail("biography options: '{}' must be in [0, 1], found {}", name, f);
  }
}

int64_t round_count(double x) {
  return static_cast<int64_t>(std::llround(x));
}

// Biographies 0..count-1 of one person, in order (one pass over the person's Rng stream).
std::vector<std::string> person_biographies(const Person& person, uint64_t seed,
                                            int64_t person_index, int count) {
  Rng rng(derive_seed(derive_seed(seed, kBioStream), static_cast<uint64_t>(person_index)));
  std::array<std::array<int, kBioTemplates>, kNumAttributes> templates{};
  for (auto& t : templates) {
    for (int i = 0; i < kBioTemplates; ++i) t[i] = i;
    for (int i = kBioTemplates; i > 1; --i) {
      std::swap(t[i - 1], t[rng.uniform(static_cast<uint64_t>(i))]);
    }
  }
  const std::string name = person.full_name();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(count));
  for (int b = 0; b < count; ++b) {
    std::array<int, kNumAttributes> order{};
    for (int i = 0; i < kNumAttributes; ++i) order[i] = i;
    for (int i = kNumAttributes; i > 1; --i) {
      std::swap(order[i - 1], order[rng.uniform(static_cast<uint64_t>(i))]);
    }
    std::string text;
    for (int k = 0; k < kNumAttributes; ++k) {
      const int a = order[k];
      const SentenceTemplate& t = kBio[a][templates[a][b % kBioTemplates]];
      if (k > 0) text += ' ';
      text += name;
      text += t.middle;
      text += person.value(static_cast<Attribute>(a));
      text += t.end;
    }
    out.push_back(std::move(text));
  }
  return out;
}

json::Json options_json(const BiographyDataset& d) {
  const BiographyOptions& o = d.options;
  return json::Json{{"seed", o.seed},
                    {"num_people", o.num_people},
                    {"bios_per_person", o.bios_per_person},
                    {"pretrain_fraction", o.pretrain_fraction},
                    {"task0_train_fraction", o.task0_train_fraction},
                    {"task1_fraction", o.task1_fraction},
                    {"split",
                     {{"pretrain_people", d.split.pretrain_people},
                      {"task0_train_end", d.split.task0_train_end},
                      {"task1_begin", d.split.task1_begin},
                      {"task1_end", d.split.task1_end}}},
                    {"prompt_format", "question + \"\\nAnswer:\", continuation \" \" + answer"}};
}

}  // namespace

const std::vector<Attribute>& all_attributes() {
  static const std::vector<Attribute> kAll = {Attribute::BirthDate,  Attribute::BirthCity,
                                              Attribute::University, Attribute::Major,
                                              Attribute::Company,    Attribute::CompanyCity};
  return kAll;
}

const char* attribute_key(Attribute attribute) {
  switch (attribute) {
    case Attribute::BirthDate:
      return "birth_date";
    case Attribute::BirthCity:
      return "birth_city";
    case Attribute::University:
      return "university";
    case Attribute::Major:
      return "major";
    case Attribute::Company:
      return "company";
    case Attribute::CompanyCity:
      return "company_city";
  }
  return "?";
}

Attribute attribute_from_key(const std::string& key) {
  for (Attribute a : all_attributes()) {
    if (key == attribute_key(a)) return a;
  }
  fail(
      "unknown biography attribute '{}' (expected birth_date, birth_city, university, major, "
      "company or company_city)",
      key);
}

std::string Person::full_name() const {
  return first_name + " " + middle_name + " " + last_name;
}

const std::string& Person::value(Attribute attribute) const {
  switch (attribute) {
    case Attribute::BirthDate:
      return birth_date;
    case Attribute::BirthCity:
      return birth_city;
    case Attribute::University:
      return university;
    case Attribute::Major:
      return major;
    case Attribute::Company:
      return company;
    case Attribute::CompanyCity:
      return company_city;
  }
  return birth_date;
}

BiographyPools biography_pools() {
  return BiographyPools{count_of(kFirstNames), count_of(kMiddleNames),  count_of(kLastNames),
                        count_of(kCities),     count_of(kUniversities), count_of(kMajors),
                        count_of(kCompanies),  kBioTemplates,           kQuestionTemplates};
}

BiographySplit biography_split(const BiographyOptions& o) {
  if (o.num_people < 1)
    fail("biography options: 'num_people' must be >= 1, found {}", o.num_people);
  if (o.bios_per_person < 1) {
    fail("biography options: 'bios_per_person' must be >= 1, found {}", o.bios_per_person);
  }
  check_fraction(o.pretrain_fraction, "pretrain_fraction");
  check_fraction(o.task0_train_fraction, "task0_train_fraction");
  check_fraction(o.task1_fraction, "task1_fraction");
  BiographySplit s;
  s.pretrain_people = round_count(static_cast<double>(o.num_people) * o.pretrain_fraction);
  s.task0_train_end = round_count(static_cast<double>(s.pretrain_people) * o.task0_train_fraction);
  s.task1_begin = s.pretrain_people;
  const int64_t n1 =
      std::min<int64_t>(round_count(static_cast<double>(o.num_people) * o.task1_fraction),
                        o.num_people - s.pretrain_people);
  s.task1_end = s.task1_begin + n1;
  return s;
}

std::vector<Person> generate_people(uint64_t seed, int64_t num_people) {
  const uint64_t nf = count_of(kFirstNames);
  const uint64_t nm = count_of(kMiddleNames);
  const uint64_t nl = count_of(kLastNames);
  const uint64_t combinations = nf * nm * nl;
  // Rejection sampling of unused names stays fast while at most half the space is used.
  if (num_people < 0 || static_cast<uint64_t>(num_people) > combinations / 2) {
    fail("biography: {} people requested; the built-in name pools allow at most {}", num_people,
         combinations / 2);
  }
  Rng rng(derive_seed(seed, kPeopleStream));
  std::unordered_set<uint64_t> used;
  used.reserve(static_cast<size_t>(num_people) * 2);
  std::vector<Person> people;
  people.reserve(static_cast<size_t>(num_people));
  for (int64_t i = 0; i < num_people; ++i) {
    uint64_t f = 0, m = 0, l = 0;
    do {
      f = rng.uniform(nf);
      m = rng.uniform(nm);
      l = rng.uniform(nl);
    } while (!used.insert((f * nm + m) * nl + l).second);
    Person p;
    p.first_name = kFirstNames[f];
    p.middle_name = kMiddleNames[m];
    p.last_name = kLastNames[l];
    const int year = kFirstYear + static_cast<int>(rng.uniform(kLastYear - kFirstYear + 1));
    const int month = 1 + static_cast<int>(rng.uniform(12));
    const int day = 1 + static_cast<int>(rng.uniform(days_in_month(year, month)));
    p.birth_date = fmt::format("{} {}, {}", kMonths[month - 1], day, year);
    p.birth_city = kCities[rng.uniform(count_of(kCities))];
    p.university = kUniversities[rng.uniform(count_of(kUniversities))];
    p.major = kMajors[rng.uniform(count_of(kMajors))];
    const Company& c = kCompanies[rng.uniform(count_of(kCompanies))];
    p.company = c.name;
    p.company_city = c.city;
    people.push_back(std::move(p));
  }
  return people;
}

std::string biography_text(const Person& person, uint64_t seed, int64_t person_index, int index) {
  if (index < 0) fail("biography_text: index must be >= 0, found {}", index);
  return person_biographies(person, seed, person_index, index + 1).back();
}

std::vector<Document> biographies(const std::vector<Person>& people, uint64_t seed, int64_t begin,
                                  int64_t end, int bios_per_person) {
  if (begin < 0 || end < begin || end > static_cast<int64_t>(people.size())) {
    fail("biographies: range [{}, {}) is outside the {} people", begin, end, people.size());
  }
  std::vector<Document> docs;
  docs.reserve(static_cast<size_t>((end - begin) * bios_per_person));
  for (int64_t i = begin; i < end; ++i) {
    auto texts = person_biographies(people[static_cast<size_t>(i)], seed, i, bios_per_person);
    for (int b = 0; b < bios_per_person; ++b) {
      docs.push_back(
          Document{std::move(texts[static_cast<size_t>(b)]), fmt::format("bio/{}/{}", i, b)});
    }
  }
  return docs;
}

QaItem qa_item(const Person& person, uint64_t seed, int64_t person_index, Attribute attribute) {
  const int a = static_cast<int>(attribute);
  Rng rng(derive_seed(derive_seed(seed, kQaStream),
                      static_cast<uint64_t>(person_index) * kNumAttributes + a));
  const QuestionTemplate& t = kQuestions[a][rng.uniform(kQuestionTemplates)];
  QaItem item;
  item.id = fmt::format("{}/{}", person_index, attribute_key(attribute));
  item.person = person.full_name();
  item.question = t.before + item.person + t.after;
  item.answer = person.value(attribute);
  item.attribute = attribute_key(attribute);
  return item;
}

std::vector<QaItem> qa_items(const std::vector<Person>& people, uint64_t seed, int64_t begin,
                             int64_t end) {
  if (begin < 0 || end < begin || end > static_cast<int64_t>(people.size())) {
    fail("qa_items: range [{}, {}) is outside the {} people", begin, end, people.size());
  }
  std::vector<QaItem> items;
  items.reserve(static_cast<size_t>((end - begin) * kNumAttributes));
  for (int64_t i = begin; i < end; ++i) {
    for (Attribute a : all_attributes()) {
      items.push_back(qa_item(people[static_cast<size_t>(i)], seed, i, a));
    }
  }
  return items;
}

BiographyDataset generate_biography_dataset(const BiographyOptions& options) {
  BiographyDataset d;
  d.options = options;
  d.split = biography_split(options);
  d.people = generate_people(options.seed, options.num_people);
  d.pretrain =
      biographies(d.people, options.seed, 0, d.split.pretrain_people, options.bios_per_person);
  d.task0_train = qa_items(d.people, options.seed, 0, d.split.task0_train_end);
  const BiographySplit& s = d.split;
  d.task0_test = qa_items(d.people, options.seed, s.task0_train_end, s.pretrain_people);
  d.task1 = qa_items(d.people, options.seed, d.split.task1_begin, d.split.task1_end);
  return d;
}

void write_people_jsonl(const std::string& path, const std::vector<Person>& people) {
  detail::ensure_parent_dir(path);
  AtomicFileWriter w(path);
  std::string buf;
  for (size_t i = 0; i < people.size(); ++i) {
    const Person& p = people[i];
    json::Json row{{"index", i},
                   {"name", p.full_name()},
                   {"first_name", p.first_name},
                   {"middle_name", p.middle_name},
                   {"last_name", p.last_name}};
    for (Attribute a : all_attributes()) row[attribute_key(a)] = p.value(a);
    buf += detail::dump_line(row);
    buf += '\n';
    if (buf.size() > (1u << 20)) {
      w.write(buf.data(), buf.size());
      buf.clear();
    }
  }
  w.write(buf.data(), buf.size());
  w.commit();
}

void write_biography_dataset(const BiographyDataset& dataset, const std::string& dir) {
  detail::ensure_dir(dir);
  const std::string base = dir + "/";
  write_people_jsonl(base + "people.jsonl", dataset.people);
  write_documents_jsonl(base + "pretrain.jsonl", dataset.pretrain);
  write_qa_jsonl(base + "task0_train.jsonl", dataset.task0_train);
  write_qa_jsonl(base + "task0_test.jsonl", dataset.task0_test);
  write_qa_jsonl(base + "task1.jsonl", dataset.task1);
  write_file_atomic(base + "options.json", options_json(dataset).dump(2) + "\n");
}

}  // namespace gb::data
