# The C-level interface of the search (_search.pyx): its tree, its settings and the loop
# that grows the tree without the GIL.  The game, and the judgements of its positions and
# actions, are reached through _search_game.pxd alone.

from libc.stdint cimport int16_t, int32_t, uint8_t, uint32_t, uint64_t

from tigris._search_game cimport GameState, MAX_PLAYERS, Weights, Net, Network


cdef enum:
    ROLLOUT_RANDOM = 0          # Config.rollout: uniformly random decisions
    ROLLOUT_GREEDY = 1          # Config.rollout: epsilon-greedy (game_greedy_action)
    ROOT_UCB = 0                # Config.root: UCB over the root's children, as at every node
    ROOT_HALVING = 1            # Config.root: sequential halving over the best-prior candidates
    PRIORS_HEURISTIC = 0        # Config.priors: the evaluator's priors by kind of action
    PRIORS_NET = 1              # Config.priors: the network's policy (Config.net's policy head)
    POLICY_LIST = 16            # the best actions a node keeps of one evaluation of the policy
    NO_NODE = -1                # "no node": the root's parent, the end of a sibling list
    # Why a search stopped early (Tree.stop).
    STOP_NONE = 0
    STOP_MEMORY = 1             # the tree could not grow: out of memory
    STOP_NO_ACTION = 2          # a position without a legal action: never in a valid game
    STOP_SIGNAL = 3             # a signal handler raised (KeyboardInterrupt)
    STOP_INCONSISTENT = 4       # a rule step stopped the game (game_broken): never in a valid game


cdef struct Node:
    int32_t parent              # NO_NODE at the root
    int32_t first_child         # the newest child; NO_NODE while none is expanded
    int32_t next_sibling        # the next older child of the same parent, or NO_NODE
    int32_t visits              # iterations that went through this node
    int32_t avail               # visits of the parent in which `action` was legal
    int16_t action              # the action that leads here from the parent (-1 at the root)
    uint8_t mover               # the player who chose `action` (to move at the parent)
    uint8_t rounds              # a child of a halving root: the halving phases it took part in
                                #   (0: never a candidate); in the padding, the node's size unchanged
    int16_t nchildren           # children expanded so far
    int32_t policy              # the node's PolicyList in Tree.policies, or NO_NODE (none yet)
    float prior                 # the policy's probability of `action` when it was expanded
                                #   (0: expanded by the heuristic's priors)
    float reward[MAX_PLAYERS]          # summed rewards of the iterations through this node, per player
    # ... and their summed chances of finishing first at the rollouts' ends (reported, never
    # steering: UCB reads the rewards alone)
    float chance[MAX_PLAYERS]
    float chance_sq             # the searching player's chances squared, summed: their spread
    # ... and the searching player's final-score margin against the best other player there
    # (reported, never steering), summed, and its square: the measure an analysis marks by,
    # which still moves once the chances have settled at 0 or 1
    float margin
    float margin_sq


cdef struct Snapshot:
    # A root child in the running at a halving, as it stood then (a halving root's
    # candidates have had the same visits since its first halving: a move is compared
    # with another as they stood at the same visits).
    int32_t node                # the root child
    int32_t halving             # the halving (Tree.halved when it was made; from 1)
    int32_t visits              # its visits then
    float chance[MAX_PLAYERS]          # its chances summed then, per player
    float chance_sq             # the searching player's chances squared, summed then


cdef struct PolicyList:
    # The best untried actions of a node by one evaluation of the policy (on the
    # determinization that expanded it), best first: its widening takes them in this
    # order, each when it is legal, and evaluates the policy again once none is left.
    int16_t action[POLICY_LIST]
    float prob[POLICY_LIST]     # their probabilities (their logits when policy_exploration is 0:
                                #   then only the order counts, and no exponential is taken)
    int16_t n


cdef struct Config:
    long iterations             # iterations of this step; 0: no iteration limit
    double seconds              # seconds of this step; 0: no time limit
    double exploration          # UCB's exploration constant
    int rollout                 # ROLLOUT_RANDOM or ROLLOUT_GREEDY
    double epsilon              # share of uniformly random decisions in greedy rollouts
    int rollout_depth           # decisions played before the evaluation; -1: to the end
    double widening             # progressive widening: children <= widening * sqrt(visits + 1); 0: off
    int root                    # ROOT_UCB or ROOT_HALVING: how the root shares out its visits
    int candidates              # ROOT_HALVING: the root moves it starts from, best after the UCB phase
    double halving_scale        # ROOT_HALVING: weight of the mean reward against the log prior
    long plan_iterations        # ROOT_HALVING: the whole budget of the tree, in iterations...
    double plan_seconds         # ... or in seconds (0: not given); the phases are its shares
    int determinize             # 1: ISMCTS over the information set; 0: the state as given
    int ndeterminizations       # > 0: each determinization is one of these rows (a belief's)...
    const uint8_t* determinizations     # ... DETERMINIZATION_BYTES each (_search_game.pxd)...
    const double* determinization_cum   # ... drawn by these cumulative weights (the last is 1)
    int nroot_only              # > 0: the root searches only these of its legal actions...
    const int32_t* root_only    # ... (the analysis of a move played: its chance, searched alike)
    int timing                  # 1: measure the time spent in rollouts
    double rollout_seconds      # out: that time, summed over the steps
    uint64_t seed               # the stream of random numbers (mixed with the tree's size per step)
    long done                   # out: the iterations the last step ran
    Weights weights             # the evaluator's rewards and priors
    const Net* net              # the learned evaluation of a rollout's end; NULL: the heuristic
    double net_share            # its share of the value, the rest the heuristic's
    double root_lookahead       # weight of a root move's one-ply value in its log prior
    int priors                  # PRIORS_HEURISTIC or PRIORS_NET: what orders the expansions
    int policy_visits           # PRIORS_NET: the visits from which a node expands by the policy
    double policy_exploration   # PUCT's term: policy_exploration * prior * sqrt(avail) / (1 + visits)
    double margin_share         # share of the score margin's logistic in a rollout's end's value
    double margin_scale         # the margin (points) that logistic divides by


cdef struct Scratch:
    # Per-step buffers of the descent: the legal actions of a node, the marks (stamped per
    # node visited) of which actions are legal and which have a child, and the policy's
    # probabilities of the legal actions.
    int32_t* legal
    uint32_t* legal_mark
    uint32_t* child_mark
    uint32_t stamp
    double* prob


cdef struct Tree:
    Node* nodes                 # the arena: node i is nodes[i], the root is node 0
    int32_t n                   # nodes in use
    int32_t cap                 # nodes allocated
    PolicyList* policies        # the nodes' policy lists (Node.policy), an arena of its own
    int32_t npolicies           # lists in use
    int32_t cappolicies         # lists allocated
    int32_t* order              # the root's legal actions, best prior first (children in this order)
    double* order_prior         # their priors, in the same order
    int norder                  # how many
    int stop                    # STOP_*: why the last step stopped early
    double elapsed              # seconds spent searching, over all steps
    int32_t* survivors          # ROOT_HALVING: the root children still in the running
    double* survivor_prior      # their priors
    int nsurvivors              # how many; -1 until the first halving
    int halved                  # halvings done so far
    int cursor                  # the candidate whose visit is next in this round
    long round                  # rounds of the current phase done (each visits every candidate once)
    Snapshot* snapshots         # ROOT_HALVING: the candidates as they stood at each halving from the second
    int32_t nsnapshots          # how many
    int32_t capsnapshots        # allocated


# Grow the tree from `root` for `player` until cfg's budget is spent; -1 with a Python
# exception set when it stopped on an error (the tree keeps the iterations that completed).
cdef int search(Tree* t, const GameState* root, int player, Config* cfg) except -1 nogil


cdef class Search:
    cdef GameState root         # the position searched (never changed)
    cdef Config cfg
    cdef Tree tree
    cdef public int player      # the searching player: the one to move at the root
    cdef public long iterations # iterations run in all steps
    cdef public str final       # how stats() picks "best": "visits" or "value"
    cdef uint8_t* determinizations      # the belief's rows (Config.determinizations), owned here
    cdef double* determinization_cum    # their cumulative weights (Config's), owned here
    cdef int32_t* root_only     # the root's actions searched (Config.root_only), owned here
    cdef Network network        # keeps Config.net's weights alive (None: the heuristic)
    cdef list _line(self, int32_t node, int depth)
    cdef list _line_visits(self, int32_t node, int depth)
